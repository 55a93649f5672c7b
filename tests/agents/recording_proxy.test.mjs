// The recording proxy the agent tests put between a client and zest
// (tests/lib/recording_proxy.mjs), against a stand-in upstream: it passes
// answers through whole, and what it reads as an error inside an answer of
// 200 (every event of a stream, not only its start) is what the agent tests
// fail on. No client and no zest needed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/recording_proxy.mjs';

// A stream long enough that an error past its first 64 KiB would once have
// gone unread.
const filler = Array.from({ length: 2000 }, (_, i) => `data: {"choices":[{"delta":{"content":"${'x'.repeat(40)}${i}"}}]}\n\n`).join('');

// What the stand-in answers, by path: [content type, body] (or 'cut': an
// event, then the connection dropped).
const ANSWERS = {
  '/sse-ok': ['text/event-stream', `${filler}data: [DONE]\n\n`],
  '/sse-error-event': ['text/event-stream', `event: message_start\ndata: {"type":"message_start"}\n\n${filler}` +
    'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"engine died"}}\n\n'],
  '/sse-error-member': ['text/event-stream', `${filler}data: {"error":{"message":"engine died","code":500}}\n\ndata: [DONE]\n\n`],
  '/sse-response-failed': ['text/event-stream', 'event: response.failed\ndata: {"type":"response.failed","response":{"status":"failed"}}\n\n'],
  '/json-ok': ['application/json', '{"id":"a","choices":[],"error":null}'],
  '/json-error': ['application/json', '{"error":{"message":"no","type":"server_error"}}'],
  '/cut': 'cut',
};

// A stream the client leaves after its first event; the rest follows once
// it has gone (`gone` resolves then).
const LEFT_EARLY = ['data: {"type":"response.created"}\n\n', `${filler}data: {"type":"response.completed"}\n\n`];
let clientGone;
const gone = new Promise((resolve) => { clientGone = resolve; });

describe('the recording proxy', () => {
  let upstream;
  let proxy;
  let socketDir;
  before(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      const answer = ANSWERS[req.url];
      if (req.url === '/left-early') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(LEFT_EARLY[0]);
        gone.then(() => res.end(LEFT_EARLY[1]));
        return;
      }
      if (answer === 'cut') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[]}\n\n', () => res.destroy());
        return;
      }
      res.writeHead(200, { 'content-type': answer[0] });
      res.end(answer[1]);
    });
    await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-proxy-test-'));
    proxy = await startRecordingProxy(`http://127.0.0.1:${upstream.address().port}`, { socket: path.join(socketDir, 'p.sock') });
  });
  after(async () => {
    await proxy?.close();
    await new Promise((resolve) => upstream?.close(resolve));
    if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
  });

  // A POST through the proxy's UNIX socket; resolves to [status, body].
  const post = (p) => new Promise((resolve) => {
    const req = http.request({ socketPath: proxy.socket, path: p, method: 'POST' }, (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve([res.statusCode, Buffer.concat(parts).toString('utf8')]));
      res.on('error', () => resolve([res.statusCode, null]));
    });
    req.on('error', () => resolve([0, null]));
    req.end('{}');
  });

  test('passes answers through whole and names each error inside an answer of 200', async () => {
    for (const p of Object.keys(ANSWERS)) {
      const [status, body] = await post(p);
      assert.equal(status, 200, p);
      if (ANSWERS[p] !== 'cut') assert.equal(body, ANSWERS[p][1], `${p} passed through unchanged`);
    }
    await proxy.settled();
    assert.ok(proxy.requests.every((r) => r.answer !== undefined), 'every answer recorded');
    assert.equal(proxy.requests.find((r) => r.path === '/sse-ok').answer, ANSWERS['/sse-ok'][1], 'whole, past 64 KiB');
    const errors = proxy.errors();
    assert.deepEqual([...new Set(errors.map((e) => e.path))].sort(),
      ['/cut', '/json-error', '/sse-error-event', '/sse-error-member', '/sse-response-failed']);
    assert.match(errors.find((e) => e.path === '/sse-error-event').error, /^event: error .*engine died/);
    assert.match(errors.find((e) => e.path === '/cut').error, /broke off/);
  });

  // As Codex does: it exits on response.completed, maybe before the
  // stream's last bytes reach the proxy. The record is whole all the same.
  test('records an answer whole when its client leaves before the end', async () => {
    await new Promise((resolve) => {
      const req = http.request({ socketPath: proxy.socket, path: '/left-early', method: 'POST' }, (res) => {
        res.once('data', () => { res.destroy(); resolve(); });
      });
      req.end('{}');
    });
    // Once the proxy has seen the client go, the rest of the answer comes.
    while (!proxy.requests.find((r) => r.path === '/left-early')?.left) await new Promise(setImmediate);
    clientGone();
    await proxy.settled();
    const record = proxy.requests.find((r) => r.path === '/left-early');
    assert.equal(record.answer, LEFT_EARLY.join(''));
    assert.deepEqual(proxy.errors().filter((e) => e.path === '/left-early'), []);
  });
});
