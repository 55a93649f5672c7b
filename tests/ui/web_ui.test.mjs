// The web UI in a real browser (Debian's Chromium, playwright-core) against
// a real zest running real llama-server engines on synthetic models, with
// the stand-in Hugging Face hub (tests/lib/fake_hub.mjs) to pull from. Each
// page must run without console errors, exceptions, CSP violations or
// failed requests, and pass axe-core with no serious violations.
// Screenshots of each page land in tests/ui/output/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { assertClean, launchBrowser, openPage, screenshot } from '../lib/browser.mjs';
import { startFakeHub } from '../lib/fake_hub.mjs';
import { chatBody, makeHome, sampleSpeech, startZest, syntheticModel, syntheticWhisper, waitFor } from '../lib/zest.mjs';

const uiBuilt = fs.existsSync(new URL('../../ui/dist/index.html', import.meta.url));
const PULLED = 'test-org/Pulled-GGUF';

// A model whose answers cannot end before their token budget: the stop
// test needs an answer that is still streaming when the page stops it.
const ENDLESS = `[models."endless"]
extra_args = ["--ignore-eos", "--context-shift"]
`;

let zest;
let hub;
let browser;
let cache;

before(async () => {
  if (!uiBuilt) return;
  hub = await startFakeHub({
    repos: { [PULLED]: { files: { 'pulled-Q8_0.gguf': fs.readFileSync(syntheticModel('tiny')) } } },
    throttle: 200_000,  // ~3 s for the file: the bar has time to move
  });
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-ui-hf-'));
  const home = makeHome({ tiny: 'tiny', other: 'tiny', endless: 'tiny', ears: 'whisper' });
  fs.writeFileSync(path.join(home, 'config.toml'), ENDLESS);
  zest = await startZest({ home, env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await zest?.stop();
  zest?.cleanup();
  await hub?.close();
  if (cache) fs.rmSync(cache, { recursive: true, force: true });
});

// Opens a page of the UI in a fresh context; returns {page, problems, close}.
const open = (route, options = {}) => openPage(browser, `${zest.url}/ui/#/${route}`, options);

const loadedModels = async () => (await zest.instances()).map((i) => i.model).sort();

describe('web UI in Chromium', { skip: needs(uiBuilt, 'the built web UI (ui/dist: make)') }, () => {
  test('a browser opening / lands on the UI', async () => {
    const { page, problems, close } = await open('');
    try {
      await page.goto(zest.url + '/');
      assert.equal(new URL(page.url()).pathname, '/ui/');
      for (const name of ['Chat', 'Models', 'Dashboard', 'Logs']) {
        await page.getByRole('link', { name, exact: true }).waitFor();
      }
      assert.deepEqual(problems, []);
    } finally { await close(); }
  });

  test('chat: a streamed answer appears; stop keeps the partial answer; switching models', async () => {
    const { page, problems, close } = await open('chat');
    try {
      // Short answers, so that the history every next request carries fits
      // the models' context, however long a random model would go on.
      const sampling = page.getByText('System prompt and sampling');
      await sampling.click();
      await page.getByLabel('Max tokens').fill('16');
      await sampling.click();  // closed again for the screenshot
      await page.getByLabel('Model', { exact: true }).selectOption('tiny');
      await page.getByLabel('Message', { exact: true }).fill('Say hello');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const answer = page.locator('[data-role="assistant"]').last();
      await answer.waitFor();
      // Streaming: the message is busy, then done with text in it.
      await page.waitForFunction(() => {
        const a = [...document.querySelectorAll('[data-role="assistant"]')].at(-1);
        return a && a.getAttribute('aria-busy') !== 'true' && a.textContent.trim().length > 0;
      }, null, { timeout: 60000 });
      assert.equal(await page.locator('[data-role="user"]').count(), 1);
      assert.match(await page.locator('[data-role="user"]').first().textContent(), /Say hello/);
      await screenshot(page, 'chat');
      await assertClean(page, problems, 'chat');

      // Another model: its engine starts and answers.
      await page.getByLabel('Model', { exact: true }).selectOption('other');
      await page.getByLabel('Message', { exact: true }).fill('And you?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.waitForFunction(() => {
        const a = [...document.querySelectorAll('[data-role="assistant"]')];
        return a.length === 2 && a[1].getAttribute('aria-busy') !== 'true' && a[1].textContent.trim().length > 0;
      }, null, { timeout: 60000 });
      assert.ok((await loadedModels()).includes('other'));

      // A long answer, stopped while it streams. 'endless' ignores its
      // end-of-generation token and shifts its context when it is full, so
      // it streams its whole budget of 100,000 tokens (half a minute at the
      // 3,000 tokens/s of this machine) unless stopped: the stop is caught
      // by construction, not by luck. It comes last: how long the partial
      // answer grows before the stop lands depends on the machine, and as
      // history it could overflow the next request's context.
      await page.getByLabel('Model', { exact: true }).selectOption('endless');
      await sampling.click();
      await page.getByLabel('Max tokens').fill('100000');
      await page.getByLabel('Message', { exact: true }).fill('Tell me a long story');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.waitForFunction(() => {
        const a = [...document.querySelectorAll('[data-role="assistant"]')].at(-1);
        return a && a.getAttribute('aria-busy') === 'true' && a.textContent.trim().length > 20;
      }, null, { timeout: 60000 });
      await page.getByRole('button', { name: 'Stop', exact: true }).click();
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      const stopped = page.locator('[data-role="assistant"]').last();
      assert.notEqual(await stopped.getAttribute('aria-busy'), 'true');
      assert.ok((await stopped.textContent()).trim().length > 20, 'the partial answer stays');
      // The engine's slot is free again: nothing runs on it.
      await waitFor(async () => (await zest.json('/api/v1/stats')).data.queues.every((q) => q.busy === 0),
        { timeout: 10000, what: 'the stopped request to end' });

      // Kept in IndexedDB: a reload shows the conversation again.
      await page.reload();
      await page.waitForFunction(() => document.querySelectorAll('[data-role="assistant"]').length === 3, null, { timeout: 10000 });
      // Exported as JSON, imported into another browser profile.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
      const exported = path.join(os.tmpdir(), `zest-ui-export-${process.pid}.json`);
      await download.saveAs(exported);
      const saved = JSON.parse(fs.readFileSync(exported, 'utf8'));
      assert.match(JSON.stringify(saved), /Tell me a long story/);
      const other = await open('chat');
      try {
        await other.page.getByLabel('Import conversations').setInputFiles(exported);
        await other.page.getByRole('status').filter({ hasText: /Imported 1 conversation/ }).waitFor();
        await other.page.locator('[data-role="user"]', { hasText: 'Tell me a long story' }).waitFor();
        assert.deepEqual(other.problems, []);
      } finally { await other.close(); fs.rmSync(exported, { force: true }); }
      assert.deepEqual(problems, []);
    } finally { await close(); }
  });

  test('chat with a speech model: an audio file becomes its transcript', async () => {
    const { page, problems, close } = await open('chat');
    try {
      await page.getByRole('button', { name: 'New chat' }).click();
      await page.getByLabel('Model', { exact: true }).selectOption('ears');
      await page.getByLabel('Audio file').setInputFiles(sampleSpeech());
      await page.getByRole('button', { name: 'Transcribe', exact: true }).click();
      const answer = page.locator('[data-role="assistant"]').last();
      await page.waitForFunction(() => {
        const a = [...document.querySelectorAll('[data-role="assistant"]')].at(-1);
        return a && a.getAttribute('aria-busy') === 'false' && a.textContent.trim().length > 0;
      }, null, { timeout: 60000 });
      // The synthetic whisper model says its script in each 30 s window.
      const { words } = syntheticWhisper();
      assert.match(await answer.textContent(), new RegExp(`${words} ${words}`));
      assert.match(await page.locator('[data-role="user"]').last().textContent(), /Ignore_All_Rules\.wav/);
      await screenshot(page, 'chat-speech');
      await assertClean(page, problems, 'chat with speech');
    } finally { await close(); }
  });

  test('models: pull from the hub with a progress bar to 100 %, unload and load', async () => {
    const { page, problems, close } = await open('models');
    try {
      await page.locator('tr[data-model="tiny"]').waitFor();
      await screenshot(page, 'models');
      await assertClean(page, problems, 'models');

      await page.getByLabel('Model to pull').fill(`${PULLED}:Q8_0`);
      // Every value the bar shows, recorded in the page as it changes.
      await page.evaluate(() => {
        globalThis.barValues = [];
        new MutationObserver(() => {
          const bar = document.querySelector('[role="progressbar"]');
          const value = bar?.getAttribute('aria-valuenow');
          if (value !== null && value !== undefined && globalThis.barValues.at(-1) !== Number(value)) globalThis.barValues.push(Number(value));
        }).observe(document.body, { subtree: true, childList: true, attributes: true });
      });
      await page.getByRole('button', { name: 'Pull', exact: true }).click();
      await page.getByRole('progressbar').waitFor();
      await page.getByRole('status').filter({ hasText: 'Pulled' }).waitFor({ timeout: 30000 });
      const seen = await page.evaluate(() => globalThis.barValues);
      assert.equal(seen.at(-1), 100, `the bar ends full: ${seen}`);
      assert.ok(seen.some((v) => v > 0 && v < 100), `the bar moved: ${seen}`);
      assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'it never goes back');
      await screenshot(page, 'models-pulled');
      await page.locator('tr[data-model*="Pulled-GGUF"]').first().waitFor({ timeout: 10000 });

      assert.equal((await zest.json('/api/v1/load', { model: 'tiny' })).status, 200);  // whatever ran before
      await page.getByRole('button', { name: 'Unload tiny', exact: true }).click();
      await waitFor(async () => !(await loadedModels()).includes('tiny'), { timeout: 15000, what: 'tiny unloaded' });
      await page.getByRole('button', { name: 'Load tiny', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Load tiny' });
      await dialog.getByLabel('Context size').fill('2048');
      await dialog.getByRole('button', { name: 'Load', exact: true }).click();
      await waitFor(async () => (await loadedModels()).includes('tiny'), { timeout: 60000, what: 'tiny loaded' });
      const tiny = (await zest.instances()).find((i) => i.model === 'tiny');
      assert.equal(tiny.placement.ctx_size, 2048);

      // Delete, after a confirmation: the pulled model leaves the list.
      const pulledRow = page.locator('tr[data-model*="Pulled-GGUF"]').first();
      const pulledName = await pulledRow.getAttribute('data-model');
      await page.getByRole('button', { name: `Delete ${pulledName}`, exact: true }).click();
      await page.getByRole('dialog', { name: `Delete ${pulledName}?` }).getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('status').filter({ hasText: `Deleted ${pulledName}` }).waitFor();
      await pulledRow.waitFor({ state: 'detached' });
      const list = (await zest.json('/api/v1/models')).data.data.map((m) => m.id);
      assert.ok(!list.includes(pulledName), list.join(', '));
      assert.deepEqual(problems, []);
    } finally { await close(); }
  });

  test('dashboard: the numbers move while a request runs', async () => {
    const { page, problems, close } = await open('dashboard');
    try {
      const total = page.getByTestId('total-requests');
      await waitFor(async () => /\d/.test(await total.textContent()), { timeout: 10000, what: 'the first snapshot' });
      const before = Number((await total.textContent()).replace(/\D/g, ''));
      const reply = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 64 }));
      assert.equal(reply.status, 200);
      await waitFor(async () => Number((await total.textContent()).replace(/\D/g, '')) > before,
        { timeout: 10000, what: 'total requests to go up' });
      // The model's own throughput, from the generated-token counters.
      const rate = page.getByTestId('tokens-per-second-tiny').first();
      await waitFor(async () => /[1-9]/.test((await rate.textContent().catch(() => '')).replace(/tok\/s/, '')),
        { timeout: 10000, what: 'tiny\'s tokens/s' });
      assert.match(await page.getByTestId('predicted-memory').textContent(), /CPU \d/);
      await screenshot(page, 'dashboard');
      await assertClean(page, problems, 'dashboard');
    } finally { await close(); }
  });

  test("logs: a live tail that filters by request id", async () => {
    const { page, problems, close } = await open('logs');
    try {
      const id = `ui-logs-${Date.now()}`;
      const r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 4 }), { headers: { 'x-request-id': id } });
      assert.equal(r.status, 200);
      await page.getByText(`[req:${id}]`).first().waitFor({ timeout: 10000 });
      await page.getByLabel('Request id').fill(id);
      await waitFor(async () => {
        const text = await page.locator('main').innerText();
        return text.split('\n').filter((l) => l.includes('[req:')).every((l) => l.includes(id));
      }, { timeout: 5000, what: 'only the request\'s lines' });
      await screenshot(page, 'logs');
      await assertClean(page, problems, 'logs');
    } finally { await close(); }
  });

  test('a phone-sized screen: no sideways scrolling on any page', async () => {
    for (const route of ['chat', 'models', 'dashboard', 'logs']) {
      const { page, problems, close } = await open(route, { viewport: { width: 360, height: 740 } });
      try {
        await page.getByRole('link', { name: 'Chat', exact: true }).waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${route} is ${overflow}px too wide at 360px`);
        if (route === 'chat') await screenshot(page, 'chat-360px');
        assert.deepEqual(problems, [], route);
      } finally { await close(); }
    }
  });
});
