// The web UI's HTTP side, without a browser (tests/ui/ drives one): where
// browsers and Ollama clients land on "/", the UI's files with their
// content types, cache rules and Content-Security-Policy, what
// /api/v1/session says for each kind of key, and the dashboard's one live
// stream (/api/v1/events): snapshots, latency histograms, recent errors
// (admin keys only).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { exchange } from '../lib/raw_http.mjs';
import { chatBody, makeHome, sseData, startZest, zestBin } from '../lib/zest.mjs';

const uiBuilt = fs.existsSync(new URL('../../ui/dist/index.html', import.meta.url));

function zestCli(home, args) {
  return execFileSync(zestBin, args, {
    env: { ...process.env, ZEST_HOME: home }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

// The first `count` events of GET /api/v1/events, parsed.
async function events(zest, count, headers = {}) {
  const controller = new AbortController();
  const res = await zest.fetch('/api/v1/events', { headers, signal: controller.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const out = [];
  for await (const data of sseData(res)) {
    out.push(JSON.parse(data));
    if (out.length === count) break;
  }
  controller.abort();
  return out;
}

// The first event of GET /api/v1/events that satisfies `predicate`, or the
// last of `max` (one a second) for the assertions to explain.
async function eventWhere(zest, predicate, max = 5) {
  const controller = new AbortController();
  const res = await zest.fetch('/api/v1/events', { signal: controller.signal });
  let last;
  let seen = 0;
  for await (const data of sseData(res)) {
    last = JSON.parse(data);
    if (predicate(last) || ++seen === max) break;
  }
  controller.abort();
  return last;
}

describe('web UI over HTTP, no keys', () => {
  let zest;
  before(async () => { zest = await startZest(); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a browser asking for / is sent to /ui/; an Ollama client still hears "Ollama is running"', async () => {
    let res = await zest.fetch('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/ui/');
    res = await zest.fetch('/', { headers: { accept: '*/*' } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'Ollama is running');
    res = await zest.fetch('/ui', { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/ui/');
  });

  test('the page: HTML, never cached, a strict CSP and no inline script', async () => {
    const res = await zest.fetch('/ui/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const csp = res.headers.get('content-security-policy');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /media-src blob:(;|$)/);  // answers read aloud: fetched, then played
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    // Every <script> loads a file; none carries code of its own.
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      assert.match(m[1], /\bsrc=/, m[0]);
      assert.equal(m[2].trim(), '', m[0]);
    }
    assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handlers');
    if (!uiBuilt) assert.match(html, /built without its web UI/);
  });

  test('hashed assets are immutable, with their content types; unknown files are 404', { skip: needs(uiBuilt, 'the built web UI (ui/dist: make)') }, async () => {
    const html = await (await zest.fetch('/ui/')).text();
    const assets = [...html.matchAll(/(?:src|href)="\/ui\/(assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.some((a) => a.endsWith('.js')), html);
    assert.ok(assets.some((a) => a.endsWith('.css')), html);
    for (const asset of assets) {
      const res = await zest.fetch(`/ui/${asset}`);
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const type = asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
      if (/\.(js|css)$/.test(asset)) assert.equal(res.headers.get('content-type'), type);
      const onDisk = fs.readFileSync(new URL(`../../ui/dist/${asset}`, import.meta.url));
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(onDisk), `${asset} served as built`);
    }
    assert.equal((await zest.fetch('/ui/assets/nope-12345678.js')).status, 404);
    // Sent as written (fetch would resolve the dots): no way out of the UI's
    // own files, which are a table in the binary, not a directory.
    for (const target of ['/ui/../CMakeLists.txt', '/ui/%2e%2e/README.md', '/ui/assets/../../src/webui/web_ui.cc', '/ui//etc/passwd']) {
      const { status, received } = await exchange(zest.url, [`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`]);
      assert.equal(status, 404, `${target}: ${received.slice(0, 200)}`);
    }
  });

  test('without keys the session is an admin one', async () => {
    const r = await zest.json('/api/v1/session');
    assert.equal(r.status, 200);
    assert.deepEqual(r.data, { keys_required: false, access: 'admin' });
  });

  test('events: a snapshot at once, then one a second, with what the separate routes say', async () => {
    const [first, second] = await events(zest, 2);
    assert.ok(second.time - first.time >= 0.5 && second.time - first.time < 5, `${first.time} ${second.time}`);
    const stats = (await zest.json('/api/v1/stats')).data;
    assert.deepEqual(Object.keys(first.stats).sort(), Object.keys(stats).sort());
    assert.deepEqual(first.ps, { instances: [] });
    const system = (await zest.json('/api/v1/system-info')).data;
    assert.equal(first.system.memory.total_bytes, system.memory.total_bytes);
    for (const name of ['time_to_first_token', 'inter_token_latency', 'queue_wait']) {
      const h = first.latency[name];
      assert.ok(Array.isArray(h.buckets), name);
      assert.equal(h.count, 0, name);
    }
    assert.ok(Array.isArray(first.errors));
  });

  test('events follow a request: the loaded instance, the histograms and an error with its request id', async () => {
    const reply = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 8, stream: true }));
    assert.equal(reply.status, 200);
    const missing = await zest.json('/v1/chat/completions', chatBody('no-such-model'), { headers: { 'x-request-id': 'ui-test-404' } });
    assert.equal(missing.status, 404);
    // A request is counted once its handler has finished, which may be just
    // after the client read the answer: wait for the snapshot that shows it.
    const snapshot = await eventWhere(zest, (e) => e.latency.time_to_first_token.count === 1 &&
      e.errors.some((x) => x.request_id === 'ui-test-404'));
    assert.equal(snapshot.ps.instances.length, 1);
    assert.equal(snapshot.ps.instances[0].model, 'tiny');
    assert.equal(snapshot.stats.model, 'tiny');
    const ttft = snapshot.latency.time_to_first_token;
    assert.equal(ttft.count, 1);
    assert.deepEqual(ttft.buckets.at(-1), ['+Inf', 1]);
    const error = snapshot.errors.find((e) => e.request_id === 'ui-test-404');
    assert.ok(error, JSON.stringify(snapshot.errors));
    assert.equal(error.status, 404);
    assert.equal(error.path, '/v1/chat/completions');
    assert.match(error.message, /no-such-model/);
  });
});

describe('web UI over HTTP, with keys', () => {
  let zest;
  let admin;
  let inference;
  before(async () => {
    const home = makeHome({});
    admin = zestCli(home, ['keys', 'add', 'boss', '--scope', 'admin']);
    inference = zestCli(home, ['keys', 'add', 'app']);
    zest = await startZest({ home });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('the page and its files need no key; the data does', async () => {
    assert.equal((await zest.fetch('/ui/')).status, 200);
    assert.equal((await zest.fetch('/api/v1/events')).status, 401);
    assert.equal((await zest.fetch('/api/v1/ps')).status, 401);
  });

  test('session says what the presented key may do, and refuses nothing', async () => {
    const ask = async (key) => (await zest.json('/api/v1/session', undefined, { headers: key ? { authorization: `Bearer ${key}` } : {} })).data;
    assert.deepEqual(await ask(null), { keys_required: true, access: 'none' });
    assert.deepEqual(await ask('not-a-key'), { keys_required: true, access: 'none' });
    assert.deepEqual(await ask(inference), { keys_required: true, access: 'inference', key_name: 'app' });
    assert.deepEqual(await ask(admin), { keys_required: true, access: 'admin', key_name: 'boss' });
  });

  test("an inference key's events carry no other requests' errors; an admin key's do", async () => {
    const [forApp] = await events(zest, 1, { authorization: `Bearer ${inference}` });
    assert.equal(forApp.errors, undefined);
    const [forBoss] = await events(zest, 1, { authorization: `Bearer ${admin}` });
    // The refusals above (no key) are among them.
    assert.ok(forBoss.errors.some((e) => e.status === 401 && e.path === '/api/v1/events'), JSON.stringify(forBoss.errors));
  });
});
