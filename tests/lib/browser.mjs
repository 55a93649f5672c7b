// A real browser for the web UI tests: Debian's Chromium (make deps --test)
// driven by playwright-core, headless. Each page is watched for console
// errors, uncaught exceptions, CSP violations and failed requests, so a
// test can insist that a page ran clean; axe-core checks accessibility.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);

export const chromiumPath = process.env.ZEST_CHROMIUM ?? '/usr/bin/chromium';
export const screenshotDir = path.join(path.dirname(new URL(import.meta.url).pathname), '../ui/output');

// `args`: more Chromium switches (a fake microphone, autoplay) for a test.
export async function launchBrowser({ args = [] } = {}) {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root (CI) cannot use Chromium's own sandbox; the pages are our own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', ...args],
  });
}

// A page on a fresh context (its own storage) that records what went wrong.
// `allowStatus(url, status)` names responses that are expected to fail.
export async function watchedPage(browser, { viewport = { width: 1280, height: 900 }, allow = () => false } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !allow(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`exception: ${err.message}`));
  page.on('requestfailed', (req) => {
    const why = req.failure()?.errorText ?? '';
    // A stream the page closed itself (leaving a page, Stop) is no failure.
    if (why.includes('ERR_ABORTED') || allow(req.url())) return;
    problems.push(`request failed: ${req.method()} ${req.url()} ${why}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400 && !allow(res.url(), res.status())) {
      problems.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
    }
  });
  return { context, page, problems };
}

// watchedPage at `url`; close() ends its context.
export async function openPage(browser, url, options = {}) {
  const watched = await watchedPage(browser, options);
  await watched.page.goto(url);
  return { ...watched, close: () => watched.context.close() };
}

// No serious accessibility violation on the page, and nothing went wrong
// (watchedPage's problems).
export async function assertClean(page, problems, name) {
  assert.deepEqual(await accessibilityViolations(page), [], `${name}: accessibility`);
  assert.deepEqual(problems, [], `${name}: console and network`);
}

// The chat page's answers kept to 4 tokens, when a test is about the
// prompt or the controls, not the answer.
export async function shortAnswers(page) {
  const sampling = page.getByText('System prompt and sampling');
  await sampling.click();
  await page.getByLabel('Max tokens').fill('4');
  await sampling.click();
}

// axe-core's serious and critical violations on the page as it is now.
// Run through the DevTools protocol, so the page's CSP (no inline script)
// stays in force.
export async function accessibilityViolations(page) {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate(() => globalThis.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

export async function screenshot(page, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
