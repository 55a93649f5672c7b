// The web UI on a server that needs API keys, in Chromium: the page asks
// for a key, refuses a wrong one, keeps a good one for the tab, and shows an
// inference key no admin pages.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { accessibilityViolations, launchBrowser, screenshot, watchedPage } from '../lib/browser.mjs';
import { makeHome, startZest, zestBin } from '../lib/zest.mjs';

const uiBuilt = fs.existsSync(new URL('../../ui/dist/index.html', import.meta.url));

function addKey(home, name, scope) {
  return execFileSync(zestBin, ['keys', 'add', name, '--scope', scope], {
    env: { ...process.env, ZEST_HOME: home }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

// Clicks `button` and returns once the page it reloads has loaded (the key
// dialog reloads the page after a good key; reading the page before that
// races the navigation).
async function clickAndWaitForReload(page, button) {
  const loaded = page.waitForEvent('load');
  await button.click();
  await loaded;
}

let zest;
let browser;
let admin;
let inference;

before(async () => {
  if (!uiBuilt) return;
  const home = makeHome({ tiny: 'tiny' });
  admin = addKey(home, 'boss', 'admin');
  inference = addKey(home, 'app', 'inference');
  zest = await startZest({ home });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await zest?.stop();
  zest?.cleanup();
});

describe('web UI with API keys', { skip: needs(uiBuilt, 'the built web UI (ui/dist: make)') }, () => {
  test('the page asks for a key, refuses a wrong one, and an inference key sees no admin pages', async () => {
    const { context, page, problems } = await watchedPage(browser);
    try {
      await page.goto(`${zest.url}/ui/`);
      const field = page.getByRole('dialog').getByLabel('API key', { exact: true });
      await field.waitFor();
      await screenshot(page, 'key-dialog');
      assert.deepEqual(await accessibilityViolations(page), []);
      await field.fill('not-a-key');
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByRole('alert').waitFor();
      await field.fill(inference);
      // A good key reloads the page (every page fetches again with its
      // rights): wait for the new document before reading from it.
      await clickAndWaitForReload(page, page.getByRole('button', { name: 'Use key' }));
      await page.getByRole('link', { name: 'Chat', exact: true }).waitFor();
      await page.getByRole('link', { name: 'Dashboard', exact: true }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Logs', exact: true }).count(), 0);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('zest.key')), inference);
      // A reload in the same tab keeps the key: no question again.
      await page.reload();
      await page.getByRole('link', { name: 'Chat', exact: true }).waitFor();
      assert.equal(await page.getByRole('dialog').getByLabel('API key', { exact: true }).count(), 0);
      assert.deepEqual(problems, []);
    } finally { await context.close(); }
  });

  test('an admin key sees every page', async () => {
    const { context, page, problems } = await watchedPage(browser);
    try {
      await page.goto(`${zest.url}/ui/`);
      await page.getByRole('dialog').getByLabel('API key', { exact: true }).fill(admin);
      await clickAndWaitForReload(page, page.getByRole('button', { name: 'Use key' }));
      await page.getByRole('link', { name: 'Logs', exact: true }).click();
      await page.getByLabel('Request id').waitFor();
      assert.deepEqual(problems, []);
    } finally { await context.close(); }
  });
});
