// Whatever a client sends, zest answers with a clear error and keeps
// serving: oversized headers and bodies, deep JSON, invalid UTF-8, too many
// messages or tokens, slowloris and idle connections, connection floods.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chatBody, makeHome, startZest, waitFor } from '../lib/zest.mjs';
import { connect, exchange, probeWhile } from '../lib/raw_http.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function assertOpenAiError(r, status) {
  assert.equal(r.status, status, JSON.stringify(r.data));
  assert.equal(typeof r.data.error?.message, 'string', JSON.stringify(r.data));
}

describe('request limits', () => {
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({ tiny: 'tiny' }),
      env: { ZEST_MAX_MESSAGES: '4', ZEST_MAX_TOKENS_CAP: '100', ZEST_MAX_JSON_DEPTH: '32' },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a 1 MiB header is 431 and the server keeps serving', async () => {
    const head = `GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(1024 * 1024)}\r\n\r\n`;
    const r = await exchange(zest.url, [head]);
    assert.equal(r.status, 431, r.received.slice(0, 200));
    assert.match(r.received, /"code":"headers_too_large"/);
    assert.equal((await zest.fetch('/health')).status, 200);
  });

  test('a 100 MiB body is 413 before it is read', async () => {
    const size = 100 * 1024 * 1024;
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    const r = await exchange(zest.url, [head, Buffer.alloc(256 * 1024, 0x20)]);
    assert.equal(r.status, 413, r.received.slice(0, 200));
    assert.match(r.received, /request body larger than/);
    // A client that really sends it all gets cut off, not buffered.
    const big = Buffer.alloc(size, 0x20);
    const res = await zest.fetch('/v1/chat/completions', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } })
      .then((x) => x.status, (e) => `error: ${e.cause?.code ?? e.message}`);
    assert.ok(res === 413 || /error/.test(String(res)), String(res));
    assert.equal((await zest.fetch('/health')).status, 200);
    // Counted as gateway rejections (the 431 of the test before, this 413).
    const metrics = await (await zest.fetch('/metrics')).text();
    const tooLarge = Number(/^zest_rejections_total\{model="",reason="too_large"\} (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(tooLarge >= 2, metrics.split('\n').filter((l) => l.includes('rejections')).join('\n'));
  });

  test('deeply nested JSON is 400 without parsing it', async () => {
    const deep = `{"model":"tiny","messages":[{"role":"user","content":"x"}],"x":${'['.repeat(100000)}${']'.repeat(100000)}}`;
    const r = await zest.json('/v1/chat/completions', deep);
    assertOpenAiError(r, 400);
    assert.match(r.data.error.message, /nests deeper than 32 levels/);
    // Brackets inside strings do not count.
    const inString = JSON.stringify(chatBody('tiny', { messages: [{ role: 'user', content: '['.repeat(1000) }] }));
    assert.equal((await zest.json('/v1/chat/completions', inString)).status, 200);
  });

  test('invalid UTF-8 is 400', async () => {
    const body = Buffer.concat([Buffer.from('{"model":"tiny","messages":[{"role":"user","content":"'),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}]}')]);
    const res = await zest.fetch('/v1/chat/completions', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const data = await res.json();
    assert.equal(res.status, 400, JSON.stringify(data));
    assert.match(data.error.message, /not valid JSON/);
  });

  test('too many messages and a max_tokens over the cap are 400 naming the field', async () => {
    const messages = Array.from({ length: 5 }, () => ({ role: 'user', content: 'x' }));
    let r = await zest.json('/v1/chat/completions', chatBody('tiny', { messages }));
    assertOpenAiError(r, 400);
    assert.equal(r.data.error.param, 'messages');
    r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 101 }));
    assertOpenAiError(r, 400);
    assert.equal(r.data.error.param, 'max_tokens');
    r = await zest.json('/v1/completions', { model: 'tiny', prompt: 'x', max_completion_tokens: 1000 });
    assert.equal(r.data.error.param, 'max_completion_tokens');
  });

  test('malformed HTTP is 400 in OpenAI\'s shape, the connection closed, and the server keeps serving', async () => {
    // A request line of junk, an unknown HTTP version, a header without a
    // colon, and a TLS ClientHello's first bytes on the plain-HTTP port.
    for (const junk of ['GARBAGE\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET /health HTTP/1.1\r\nBad Header\r\n\r\n', '\x16\x03\x01\x02\x00\x01']) {
      const r = await exchange(zest.url, [junk], { timeout: 3000 });
      const what = `${JSON.stringify(junk)} → ${r.received.slice(0, 200)}`;
      assert.equal(r.status, 400, what);
      assert.match(JSON.parse(r.body).error.message, /malformed/, what);
      assert.match(r.received, /\r\nConnection: close\r\n/i, what);
      assert.equal(r.timedOut, false, `${what}: the server closes the connection`);
    }
    assert.equal((await zest.fetch('/health')).status, 200);
  });
});

// A server that let slow or idle connections hold it up would keep /health
// waiting until they time out (seconds); one that serves them side by side
// answers in milliseconds. /health must answer within a second, well below
// any timeout here, so a loaded machine does not fail the test.
const HEALTH_BOUND_MS = 1000;

describe('connections', () => {
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({}),
      args: ['--max-connections-per-client', '1100', '--max-connections', '2000'],
      env: { ZEST_HEADER_TIMEOUT: '2', ZEST_IDLE_TIMEOUT: '1' },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('slowloris connections are closed at the header timeout while /health keeps answering', async (t) => {
    const sockets = [];
    const closedAt = [];
    const start = Date.now();
    const latencies = await probeWhile(zest.url, async () => {
      for (let i = 0; i < 50; i++) {
        const s = await connect(zest.url);
        s.on('error', () => {});
        s.on('close', () => closedAt.push(Date.now() - start));
        s.write('GET /health HTTP/1.1\r\n');
        sockets.push(s);
      }
      // One header byte every 300 ms never completes a request. A deadline
      // that each byte moved on would never close them: dribble until the
      // server has closed them all (up to 30 s, 15 header timeouts).
      for (let t = 0; t < 100 && closedAt.length < sockets.length; t++) {
        for (const s of sockets) if (!s.destroyed) s.write('X');
        await sleep(300);
      }
    });
    const closedByServer = closedAt.length;
    for (const s of sockets) s.destroy();
    t.diagnostic(`slowloris: ${latencies.length} probes, worst /health ${Math.max(...latencies).toFixed(1)} ms, last close at ${Math.max(...closedAt)} ms`);
    assert.equal(closedByServer, 50, 'every slow connection was closed by the server while it still sent');
    assert.ok(Math.min(...closedAt) >= 1900, `none before the 2 s header timeout (first at ${Math.min(...closedAt)} ms)`);
    assert.ok(Math.max(...latencies) < HEALTH_BOUND_MS, `/health took up to ${Math.max(...latencies).toFixed(1)} ms`);
  });
});

// Event streams and followed logs stay open as long as their client does:
// they have a limit of their own per address (64), so they cannot take the
// room of the address's plain requests (on loopback, every local program).
describe('long-lived streams', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({}) }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('streams have a limit of their own; plain requests are served beside them; a closed one gives its place back', async () => {
    const open = [];
    const openStream = async () => {
      const controller = new AbortController();
      const res = await zest.fetch('/api/v1/events', { signal: controller.signal });
      if (res.status !== 200) return res;
      const reader = res.body.getReader();
      await reader.read();  // its first event: the server holds it open now
      open.push(controller);
      return res;
    };
    try {
      for (let i = 0; i < 64; i++) assert.equal((await openStream()).status, 200, `stream ${i + 1}`);
      const over = await openStream();
      assert.equal(over.status, 429);
      assert.match((await over.json()).error.message, /too many open streams from your address: at most 64/);
      assert.equal(over.headers.get('retry-after'), '1');
      for (let i = 0; i < 20; i++) assert.equal((await zest.json('/v1/models')).status, 200, `plain request ${i + 1}`);
      open.shift().abort();
      await waitFor(async () => (await openStream()).status === 200, { what: 'a stream in the place of the closed one' });
    } finally {
      for (const controller of open) controller.abort();
    }
  });
});

describe('idle connections', () => {
  let zest;
  before(async () => {
    // A header timeout far beyond the test: connections that send nothing
    // stay open; a kept-alive one must go at the 1 s idle timeout instead.
    zest = await startZest({
      home: makeHome({}),
      args: ['--max-connections-per-client', '1100', '--max-connections', '2000'],
      env: { ZEST_HEADER_TIMEOUT: '60', ZEST_IDLE_TIMEOUT: '1' },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('1000 idle connections stay open while /health answers throughout', async (t) => {
    const sockets = [];
    let openDuringProbes = 0;
    const latencies = await probeWhile(zest.url, async (probes) => {
      for (let i = 0; i < 1000; i++) {
        const s = await connect(zest.url);
        s.on('error', () => {});
        sockets.push(s);
      }
      await probes(20);  // twenty answers while all 1000 are open
      openDuringProbes = sockets.filter((s) => !s.destroyed).length;
    }, { interval: 20 });
    for (const s of sockets) s.destroy();
    assert.equal(openDuringProbes, 1000, `only ${openDuringProbes} of 1000 connections were still open`);
    const worst = Math.max(...latencies);
    t.diagnostic(`1000 idle: ${latencies.length} probes, worst /health ${worst.toFixed(1)} ms, median ${latencies.sort((a, b) => a - b)[latencies.length >> 1].toFixed(1)} ms`);
    assert.ok(worst < HEALTH_BOUND_MS, `/health took up to ${worst.toFixed(1)} ms`);
  });

  test('an idle kept-alive connection is closed after the idle timeout, not the header timeout', async () => {
    const s = await connect(zest.url);
    let data = '';
    s.on('data', (d) => { data += d; });
    const closed = new Promise((r) => s.once('close', r));
    s.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const start = Date.now();
    await closed;
    assert.match(data, /^HTTP\/1\.1 200/);
    const took = Date.now() - start;
    assert.ok(took >= 900 && took < 30000, `closed after ${took} ms (idle timeout 1 s, header timeout 60 s)`);
  });
});

// Connection limits per client and in all: gateway_guards.test.mjs.
