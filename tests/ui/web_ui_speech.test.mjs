// Speech out in the web UI's chat, in Chromium against a real zest running
// real engines on synthetic models: 'tiny' (chat), 'ears' (whisper.cpp, it
// says a fixed script for any audio) and 'voice' (a speech-out model: its
// audio is noise, but real audio of a real length). Listen reads an answer
// aloud through /v1/audio/speech and plays it; voice mode records from
// Chromium's fake microphone, has 'ears' write it down, sends the words and
// reads the answer aloud. The page must run clean (no console errors,
// failed requests or CSP violations: the audio plays from a blob: URL).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { assertClean, launchBrowser, openPage, screenshot, shortAnswers } from '../lib/browser.mjs';
import { makeHome, startZest, syntheticWhisper } from '../lib/zest.mjs';

const uiBuilt = fs.existsSync(new URL('../../ui/dist/index.html', import.meta.url));
const ffmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let zest;
let browser;

before(async () => {
  if (!uiBuilt || !ffmpeg) return;
  zest = await startZest({ home: makeHome({ tiny: 'tiny', ears: 'whisper', voice: 'outetts' }) });
  browser = await launchBrowser({
    args: [
      '--use-fake-device-for-media-stream',  // a microphone that beeps
      '--use-fake-ui-for-media-stream',      // allowed without asking
      '--autoplay-policy=no-user-gesture-required',  // voice mode speaks when the answer is done
    ],
  });
});

after(async () => {
  await browser?.close();
  await zest?.stop();
  zest?.cleanup();
});

const open = () => openPage(browser, `${zest.url}/ui/#/chat`);

// Resolves once answer `n` (1-based) has finished.
function answerDone(page, n) {
  return page.waitForFunction((count) => {
    const a = [...document.querySelectorAll('[data-role="assistant"]')];
    return a.length === count && a[count - 1].getAttribute('aria-busy') === 'false' &&
      !!a[count - 1].querySelector('[data-testid="answer-stats"], .error');
  }, n, { timeout: 60000 });
}

// The next /v1/audio/speech answer: its status and type, and what the page sent.
function speechAnswer(page) {
  const answer = page.waitForResponse((r) => r.url().endsWith('/v1/audio/speech'), { timeout: 120000 })
    .then((r) => ({ status: r.status(), type: r.headers()['content-type'], sent: r.request().postDataJSON() }));
  answer.catch(() => {});  // awaited later; a timeout then is the test's failure, not an unhandled one
  return answer;
}

describe('web UI: speech out', { skip: needs(uiBuilt, 'the built web UI (ui/dist: make)') || needs(ffmpeg, 'ffmpeg') }, () => {
  test('Listen reads an answer aloud with the picked voice, and Stop ends it', async () => {
    const { page, problems, close } = await open();
    try {
      await shortAnswers(page);
      await page.getByLabel('Model', { exact: true }).selectOption('tiny');
      // No voice picked yet: no Listen.
      await page.getByLabel('Message', { exact: true }).fill('Say something');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await answerDone(page, 1);
      const answer = page.locator('[data-role="assistant"]').first();
      assert.equal(await answer.getByRole('button', { name: 'Listen' }).count(), 0);

      await page.getByLabel('Voice', { exact: true }).selectOption('voice');
      const spoken = speechAnswer(page);
      await answer.getByRole('button', { name: 'Listen' }).click();
      // Reading from the click on: the request, then the playback.
      const reading = answer.getByRole('button', { name: 'Stop reading' });
      assert.equal(await reading.getAttribute('aria-pressed'), 'true');
      const r = await spoken;
      assert.equal(r.status, 200);
      assert.equal(r.type, 'audio/wav');
      assert.equal(r.sent.model, 'voice');
      assert.ok(r.sent.input.length > 0);
      await screenshot(page, 'chat-listen');
      // Played to its end, the button is Listen again.
      await answer.getByRole('button', { name: 'Listen' }).waitFor({ timeout: 60000 });
      // Stop ends a reading at once.
      await answer.getByRole('button', { name: 'Listen' }).click();
      await reading.click();
      await answer.getByRole('button', { name: 'Listen' }).waitFor();
      // Kept for the next visit.
      await page.reload();
      assert.equal(await page.getByLabel('Voice', { exact: true }).inputValue(), 'voice');
      await assertClean(page, problems, 'listen');
    } finally { await close(); }
  });

  test('voice mode: a recording is written down, sent, answered and read aloud', async () => {
    const { page, problems, close } = await open();
    try {
      await shortAnswers(page);
      await page.getByRole('button', { name: 'New chat' }).click();
      await page.getByLabel('Model', { exact: true }).selectOption('tiny');
      await page.getByLabel('Voice', { exact: true }).selectOption('voice');
      await page.getByRole('button', { name: 'Talk', exact: true }).click();
      // Enabled once the microphone has delivered sound; whisper.cpp reads
      // nothing under a second, so two are recorded.
      const send = page.getByRole('button', { name: 'Stop and send' });
      await page.getByRole('status').filter({ hasText: 'Listening… 2 s' }).waitFor();
      const spoken = speechAnswer(page);
      await send.click();
      await answerDone(page, 1).catch(async (e) => {
        throw new Error(`${e.message}; the page says: ${await page.locator('.chat-main').textContent()}`);
      });
      // The fake microphone's beep, written down by the synthetic model: its script.
      assert.match(await page.locator('[data-role="user"]').last().textContent(), new RegExp(syntheticWhisper().words));
      const r = await spoken.catch(async (e) => {
        throw new Error(`${e.message}; the page says: ${await page.locator('.chat-main').textContent()}`);
      });
      assert.equal(r.status, 200);
      assert.equal(r.type, 'audio/wav');
      await screenshot(page, 'chat-voice-mode');
      await assertClean(page, problems, 'voice mode');
    } finally { await close(); }
  });
});
