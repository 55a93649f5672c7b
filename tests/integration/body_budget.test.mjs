// Request bodies held in memory have a budget over all connections
// (issue 52, MEDIUM 8). Each body is read whole before its handler runs,
// up to server.max_body_bytes (32 MiB); without a bound above that, twelve
// clients that each sent 31 MB and stalled took zest from 16 to 398 MB.
// Now a body's Content-Length is reserved from server.max_body_memory_mb
// when its headers arrive: one that does not fit is answered 503 with
// Retry-After before a byte of it is read, and the room comes back when
// the requests holding it end. Real zest; no engine is needed (the bodies
// never reach a handler).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest } from '../lib/zest.mjs';

const BODY = 31_000_000;
const CLIENTS = 12;
const BUDGET_MB = 64;  // room for two such bodies

const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

// Opens a connection and sends a chat request's headers announcing BODY
// bytes; resolves {socket, answer} where `answer` is a promise of the
// first bytes zest sends back (null when the socket closes first).
function announce(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${BODY}\r\n\r\n{"model":"tiny","messages":[`);
      let text = '';
      const answer = new Promise((done) => {
        socket.on('data', (d) => { text += d; if (text.includes('\r\n\r\n')) done(text); });
        socket.on('close', () => done(text || null));
      });
      socket.on('error', () => {});
      resolve({ socket, answer });
    });
    socket.once('error', reject);
  });
}

// What `answer` settles to within `ms`, else undefined: a bound for a
// server that never answers (the test then fails on the counts), never a
// wait the test relies on: it waits for the answers themselves.
const within = (answer, ms) => Promise.race([answer, new Promise((r) => setTimeout(() => r(undefined), ms))]);

describe('a budget for the request bodies held at once', () => {
  let zest;
  before(async () => {
    zest = await startZest({ home: makeHome({}), env: { ZEST_MAX_BODY_MEMORY_MB: String(BUDGET_MB) } });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test(`${CLIENTS} clients announcing ${BODY / 1e6} MB bodies: those past the budget get 503 at once, and zest stays small`, async (t) => {
    const before = rssBytes(zest.pid);
    const clients = [];
    for (let i = 0; i < CLIENTS; i++) clients.push(await announce(zest.url));
    // The refused are answered after their headers, without their bodies;
    // the admitted wait for theirs, unanswered. Waits for as many answers
    // as should come (30 s is only a bound for a server that never sends
    // them), then looks at who got one.
    const holds = Math.floor((BUDGET_MB << 20) / BODY);
    const answers = new Array(CLIENTS);
    let count = 0;
    await within(new Promise((all) => clients.forEach((c, i) => c.answer.then((a) => {
      answers[i] = a;
      if (++count === CLIENTS - holds) all();
    }))), 30000);
    const refused = answers.filter((a) => typeof a === 'string' && a.startsWith('HTTP/1.1 503'));
    const admitted = clients.filter((c, i) => answers[i] === undefined);
    t.diagnostic(`${refused.length} refused, ${admitted.length} admitted`);
    assert.equal(refused.length, CLIENTS - holds, `refused past the budget: ${answers.map((a) => a?.split('\r\n')[0])}`);
    assert.equal(admitted.length, holds, 'as many admitted as the budget holds');
    for (const a of refused) assert.match(a, /\r\nRetry-After: 1\r\n/i);
    // The admitted send most of their bodies and stall: zest holds them.
    const chunk = Buffer.alloc(1 << 20, 0x20);
    await Promise.all(admitted.map(async (c) => {
      for (let sent = 0; sent < BODY - (2 << 20); sent += chunk.length) {
        if (!c.socket.write(chunk)) await new Promise((r) => c.socket.once('drain', r));
      }
    }));
    const grown = rssBytes(zest.pid) - before;
    t.diagnostic(`zest's RSS grew ${(grown / 2 ** 20).toFixed(0)} MiB holding ${admitted.length} bodies`);
    assert.ok(grown < (BUDGET_MB + 48) * 2 ** 20, `RSS grew ${(grown / 2 ** 20).toFixed(0)} MiB`);
    // Once they go, the room is given back: the next body is read.
    for (const c of clients) c.socket.destroy();
    const ok = await zest.json('/v1/chat/completions', { model: 'tiny', messages: [{ role: 'user', content: 'x'.repeat(1 << 20) }] });
    assert.notEqual(ok.status, 503, JSON.stringify(ok.data));
  });
});
