// Images in the web UI's chat, in Chromium against a real zest running the
// real llama-server with a synthetic vision model and projector ('seer':
// random weights, so its answers are gibberish, but the engine encodes each
// image into exactly syntheticVision().imageTokens prompt tokens) beside a
// model without one ('tiny'). What is checked is what reached the engine:
// the prompt of the page's request is longer than the same question's
// without the image by exactly the projector's tokens. Then the image stays
// in the conversation across a reload and an export/import, the controls
// refuse images for a model that cannot read them (saying so), and zest's
// count limit and its own refusals show in the page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { assertClean, launchBrowser, openPage, screenshot, shortAnswers } from '../lib/browser.mjs';
import { makeHome, startZest, syntheticVision } from '../lib/zest.mjs';

const uiBuilt = fs.existsSync(new URL('../../ui/dist/index.html', import.meta.url));
const ffmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const QUESTION = 'What is in this picture?';

let zest;
let browser;
let dir;
let png;       // a 64 x 48 test pattern, small enough to be kept byte for byte
let pngUrl;    // ...as the data: URL the page should keep and send
let large;     // 3000 x 2000 patterns, PNG and JPEG: redrawn at 2048 pixels a side
let webp;      // a 64 x 48 WebP, which zest would convert on every turn: redrawn as PNG

before(async () => {
  if (!uiBuilt || !ffmpeg) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-ui-vision-'));
  png = path.join(dir, 'pattern.png');
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=64x48',
    '-frames:v', '1', '-y', png]);
  pngUrl = `data:image/png;base64,${fs.readFileSync(png).toString('base64')}`;
  large = ['png', 'jpg'].map((ext) => {
    const file = path.join(dir, `large.${ext}`);
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=3000x2000',
      '-frames:v', '1', '-y', file]);
    return file;
  });
  webp = path.join(dir, 'pattern.webp');
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', png, '-y', webp]);
  zest = await startZest({ home: makeHome({ seer: 'vision', tiny: 'tiny' }) });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await zest?.stop();
  zest?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const open = (options = {}) => openPage(browser, `${zest.url}/ui/#/chat`, options);

// Picks files through the Attach button's own file chooser.
async function attach(page, files) {
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: 'Attach images', exact: true }).click(),
  ]);
  await chooser.setFiles(files);
}

// Resolves once the last answer has finished (no longer busy, stats or an error shown).
function answerDone(page, count) {
  return page.waitForFunction((n) => {
    const a = [...document.querySelectorAll('[data-role="assistant"]')];
    return a.length === n && a[n - 1].getAttribute('aria-busy') === 'false' &&
      !!a[n - 1].querySelector('[data-testid="answer-stats"], .error');
  }, count, { timeout: 60000 });
}

// The natural width of the user's attached image `n` (1-based) once decoded; 0 if it is broken.
const attachedWidth = (page, n = 1) => page.locator('[data-role="user"]').getByRole('img', { name: `Attached image ${n}`, exact: true })
  .first().evaluate(async (img) => { await img.decode().catch(() => {}); return img.naturalWidth; });

describe('web UI: images in chat', { skip: needs(uiBuilt, 'the built web UI (ui/dist: make)') || needs(ffmpeg, 'ffmpeg') }, () => {
  test('an attached image reaches the engine, shows in the conversation and survives a reload and an export', async () => {
    const { page, problems, close } = await open();
    try {
      await shortAnswers(page);
      await page.getByLabel('Model', { exact: true }).selectOption('seer');
      await attach(page, png);
      const thumb = page.getByRole('list', { name: 'Images to send' }).getByRole('img', { name: 'Image to send: pattern.png' });
      await thumb.waitFor();
      assert.equal(await thumb.getAttribute('src'), pngUrl, 'a small PNG is kept byte for byte');

      await page.getByLabel('Message', { exact: true }).fill(QUESTION);
      const request = page.waitForRequest((r) => r.url().endsWith('/v1/chat/completions'));
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const sent = await request;
      await answerDone(page, 1);
      assert.equal(await page.getByRole('list', { name: 'Images to send' }).count(), 0, 'the composer is emptied');

      // What the page sent: the image, then the question.
      assert.deepEqual(sent.postDataJSON().messages, [{ role: 'user', content: [
        { type: 'image_url', image_url: { url: pngUrl } }, { type: 'text', text: QUESTION }] }]);

      // Shown in the user's message, decoded (the CSP lets data: images in).
      assert.equal(await attachedWidth(page), 64);
      assert.match(await page.locator('[data-role="user"]').first().textContent(), /What is in this picture\?/);
      await screenshot(page, 'chat-image');
      // A click shows it larger; Escape closes it.
      await page.locator('[data-role="user"]').getByRole('button', { name: 'Attached image 1' }).click();
      const viewer = page.getByRole('dialog', { name: 'Attached image 1 of 1' });
      await viewer.getByRole('img', { name: 'Attached image 1, full size' }).waitFor();
      await screenshot(page, 'chat-image-viewer');
      await assertClean(page, problems, 'image viewer');
      await page.keyboard.press('Escape');
      await viewer.waitFor({ state: 'detached' });

      // Kept in IndexedDB with the conversation: there again after a reload.
      await page.reload();
      await page.locator('[data-role="assistant"]').first().waitFor();
      assert.equal(await attachedWidth(page), 64);
      assert.equal(await page.locator('[data-role="user"]').getByRole('img', { name: 'Attached image 1' }).getAttribute('src'), pngUrl);

      // Export carries the image; an import elsewhere shows it.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
      const exported = path.join(dir, 'export.json');
      await download.saveAs(exported);
      const [question, answer] = JSON.parse(fs.readFileSync(exported, 'utf8')).conversations[0].messages;
      assert.deepEqual(question.images, [pngUrl]);
      // What the engine saw, as the answer's usage told the page (read from the
      // page's own record, not from the network: Chromium may drop a finished
      // stream's body): the same question without the image has exactly the
      // projector's tokens fewer in its prompt.
      const without = await zest.json('/v1/chat/completions',
        { model: 'seer', max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'text', text: QUESTION }] }] });
      assert.equal(without.status, 200, JSON.stringify(without.data));
      assert.equal(answer.stats.promptTokens - without.data.usage.prompt_tokens, syntheticVision().imageTokens,
        `prompt tokens with the image ${answer.stats.promptTokens}, without ${without.data.usage.prompt_tokens}`);
      const other = await open();
      try {
        await other.page.getByLabel('Import conversations').setInputFiles(exported);
        await other.page.getByRole('status').filter({ hasText: /Imported 1 conversation/ }).waitFor();
        assert.equal(await attachedWidth(other.page), 64);
        assert.deepEqual(other.problems, []);
      } finally { await other.close(); }
      await assertClean(page, problems, 'chat with an image');
    } finally { await close(); }
  });

  test('a browser storage too full for an image says so; the conversation stays on the page', async () => {
    const { page, problems, close } = await open();
    try {
      await shortAnswers(page);
      await page.getByLabel('Model', { exact: true }).selectOption('seer');
      await attach(page, large[1]);
      const src = await page.getByRole('img', { name: 'Image to send: large.jpg' }).getAttribute('src');
      // Chromium's own quota for the origin, set to less room than the
      // image needs (what a full disk or a filled quota does).
      const { usage } = await page.evaluate(() => navigator.storage.estimate());
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: zest.url, quotaSize: usage + Math.floor(src.length / 4) });
      await page.getByLabel('Message', { exact: true }).fill(QUESTION);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await answerDone(page, 1);
      await page.getByText('Could not save the conversation: the browser\'s storage for this site is full.').waitFor();
      assert.equal(await attachedWidth(page), 2048);
      await assertClean(page, problems, 'storage full');
    } finally { await close(); }
  });

  test('a model without vision: attach is off and says why, a paste says why, its refusal shows', async () => {
    // The last step asks zest to refuse: that 400 is expected.
    const refused = (url, status) => /status of 400/.test(url) || (status === 400 && url.endsWith('/v1/chat/completions'));
    const { page, problems, close } = await open({ allow: refused });
    try {
      await shortAnswers(page);
      // Waited for, not read at once: the page renders a new model after the change event.
      const attachButton = (disabled) => page.getByRole('button', { name: 'Attach images', exact: true, disabled });
      await page.getByLabel('Model', { exact: true }).selectOption('tiny');
      await attachButton(true).waitFor();
      assert.equal(await attachButton(true).getAttribute('title'), 'tiny cannot read images (it has no vision projector)');
      await assertClean(page, problems, 'attach off');

      // A pasted image (a clipboard holding only the picture) is not dropped silently.
      const paste = (selector, bytes) => page.locator(selector).evaluate((el, b64) => {
        const data = new DataTransfer();
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        data.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      }, bytes);
      const b64 = fs.readFileSync(png).toString('base64');
      await paste('#message', b64);
      await page.getByRole('alert').filter({ hasText: 'The pasted image was not attached: tiny cannot read images' }).waitFor();

      // With seer the same paste attaches, and a drop adds a second one.
      await page.getByLabel('Model', { exact: true }).selectOption('seer');
      await attachButton(false).waitFor();
      await paste('#message', b64);
      const thumbs = page.getByRole('list', { name: 'Images to send' }).getByRole('img');
      await page.getByRole('img', { name: 'Image to send: pasted.png' }).waitFor();
      await page.locator('form.composer').evaluate((form, b64) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'dropped.png', { type: 'image/png' }));
        form.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        form.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, b64);
      await page.getByRole('img', { name: 'Image to send: dropped.png' }).waitFor();
      assert.equal(await thumbs.count(), 2);
      // Large images are redrawn at most 2048 pixels a side: a PNG stays a
      // PNG (screenshots stay sharp), a JPEG a JPEG; a WebP becomes a PNG.
      await attach(page, [...large, webp]);
      for (const [name, size, type] of [['large.png', [2048, 1365], 'image/png'], ['large.jpg', [2048, 1365], 'image/jpeg'],
        ['pattern.webp', [64, 48], 'image/png']]) {
        const img = page.getByRole('img', { name: `Image to send: ${name}` });
        const seen = await img.evaluate(async (i) => { await i.decode(); return [i.naturalWidth, i.naturalHeight, i.src.split(',')[0]]; });
        assert.deepEqual(seen, [...size, `data:${type};base64`], name);
      }
      // Removed before sending.
      for (const name of ['pasted.png', 'large.png', 'large.jpg', 'pattern.webp']) {
        await page.getByRole('button', { name: `Remove ${name}` }).click();
        await page.getByRole('img', { name: `Image to send: ${name}` }).waitFor({ state: 'detached' });
      }

      // zest takes 16 images a request: the 17th is refused, saying why.
      await attach(page, Array.from({ length: 16 }, () => png));
      // The count is refused at once, in the same render that starts the
      // others' preparation; they are attached one by one after it.
      await page.getByRole('alert').filter({ hasText: '1 image was not attached' }).waitFor();
      await page.getByRole('status').filter({ hasText: /^Preparing/ }).waitFor({ state: 'detached' });
      assert.equal(await thumbs.count(), 16);
      await screenshot(page, 'chat-image-limit');
      // Attached for seer, they are not sent to tiny.
      await page.getByLabel('Model', { exact: true }).selectOption('tiny');
      await page.getByRole('alert').filter({ hasText: 'remove the images to send' }).waitFor();
      await page.getByRole('button', { name: 'Send', exact: true, disabled: true }).waitFor();

      // A conversation holding an image, continued with tiny: zest's own refusal shows in the answer.
      await page.getByLabel('Model', { exact: true }).selectOption('seer');
      await attachButton(false).waitFor();
      for (let left = 16; left > 1; left--) {
        await page.getByRole('button', { name: /^Remove / }).first().click();
        await thumbs.nth(left - 1).waitFor({ state: 'detached' });
      }
      await page.getByLabel('Message', { exact: true }).fill(QUESTION);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await answerDone(page, 1);
      await page.getByLabel('Model', { exact: true }).selectOption('tiny');
      await page.getByText('This conversation holds images, which tiny cannot read').waitFor();
      await page.getByLabel('Message', { exact: true }).fill('And now?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await answerDone(page, 2);
      assert.match(await page.locator('[data-role="assistant"]').last().locator('.error').textContent(), /model 'tiny' has no vision/);
      await assertClean(page, problems, 'refusals');
    } finally { await close(); }
  });
});
