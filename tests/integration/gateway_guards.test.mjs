// Security, round two, at the gateway: authentication fails closed, one
// body parser with the same limits for every route, the Host allow-list
// (DNS rebinding), scopes that mean what they say, a server cap on
// max_tokens, wrong keys slowed down, and connection limits no single local
// process can use to lock the others out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, exchange } from '../lib/raw_http.mjs';
import {
  chatBody, makeHome, openStream, startZest, streamsUntilStopped, waitFor, zestBin,
} from '../lib/zest.mjs';

const bearer = (key) => ({ authorization: `Bearer ${key}` });

function zestCli(home, args) {
  return execFileSync(zestBin, args, {
    env: { ...process.env, ZEST_HOME: home, ZEST_API_KEY: '' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

function rssBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

describe('authentication fails closed', () => {
  test('removing the last key keeps every route but /health at 401', async () => {
    const home = makeHome({});
    const key = zestCli(home, ['keys', 'add', 'only', '--scope', 'admin']);
    const zest = await startZest({ home });
    try {
      assert.equal((await zest.json('/v1/models', undefined, { headers: bearer(key) })).status, 200);
      // The CLI asks before it locks everyone out.
      assert.throws(() => zestCli(home, ['keys', 'rm', 'only']), /last API key.*--force/s);
      zestCli(home, ['keys', 'rm', 'only', '--force']);
      // The keys file is read again within a second of a change, at the next request.
      await waitFor(async () => /no API key any more/.test((await zest.json('/v1/models')).data?.error?.message),
        { timeout: 5000, what: 'the reload' });
      assert.match(zest.logs(), /the last API key was removed/);
      for (const p of ['/v1/models', '/api/v1/config', '/api/v1/logs', '/api/v1/ps']) {
        const r = await zest.json(p);
        assert.equal(r.status, 401, `${p}: ${JSON.stringify(r.data)}`);
        assert.match(r.data.error.message, /no API key any more/);
      }
      assert.equal((await zest.json('/api/v1/unload', { model: 'x' })).status, 401);
      assert.equal((await zest.fetch('/health')).status, 200);
      // A new key opens it again, for that key only.
      const fresh = zestCli(home, ['keys', 'add', 'again', '--scope', 'admin']);
      await waitFor(async () => (await zest.json('/v1/models', undefined, { headers: bearer(fresh) })).status === 200,
        { timeout: 5000, what: 'the new key' });
      assert.equal((await zest.json('/v1/models')).status, 401);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('one body parser for every route', () => {
  const admin = 'admin-key-for-the-body-tests-012345';
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { ZEST_API_KEY: admin } }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('nested JSON gets 400 on every POST route, and memory stays near its baseline', async () => {
    const deep = '['.repeat(30 * 1024 * 1024);
    const routes = ['/api/v1/load', '/api/v1/pull', '/api/v1/show', '/api/v1/unload', '/api/v1/add',
      '/api/v1/delete', '/v1/chat/completions', '/v1/completions', '/v1/embeddings'];
    const baseline = rssBytes(zest.pid);
    // Four at once, as in the report (it raised zest to 2.4 GB).
    for (let i = 0; i < routes.length; i += 4) {
      const batch = routes.slice(i, i + 4).map((p) => zest.json(p, deep, { headers: bearer(admin) }).then((r) => [p, r]));
      for (const [p, r] of await Promise.all(batch)) {
        assert.equal(r.status, 400, `${p}: ${JSON.stringify(r.data)}`);
        assert.match(r.data.error.message, /nests deeper than 64 levels/);
      }
    }
    const grown = rssBytes(zest.pid) - baseline;
    assert.ok(grown < 200 * 1024 * 1024, `zest grew by ${(grown / 1048576).toFixed(0)} MiB`);
  });

  test('a shallow but malformed body is a 400 in the same words everywhere', async () => {
    for (const p of ['/api/v1/load', '/api/v1/pull', '/api/v1/unload', '/v1/chat/completions']) {
      const r = await zest.json(p, '{"model": ', { headers: bearer(admin) });
      assert.equal(r.status, 400, p);
      assert.match(r.data.error.message, /not valid JSON/, p);
    }
  });
});

describe('Host allow-list', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({}), args: ['--allowed-hosts', 'zest.lan'] }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  const get = (p, host) => exchange(zest.url, [`GET ${p} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`]);

  test('a foreign Host gets 421 before routing, on a server without keys', async () => {
    for (const p of ['/api/v1/config', '/api/v1/logs', '/v1/models', '/nowhere']) {
      const r = await get(p, 'rebind.attacker.example');
      assert.equal(r.status, 421, `${p}: ${r.received.slice(0, 200)}`);
      assert.match(r.received, /server\.allowed_hosts/);
    }
  });

  test('loopback names, addresses and allowed names are served', async () => {
    const port = new URL(zest.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'zest.lan', 'ZEST.LAN:80']) {
      assert.equal((await get('/v1/models', host)).status, 200, host);
    }
  });
});

describe('scopes mean what they say', () => {
  let zest, home, low, admin;
  const depth = async (priority) => {
    const text = await (await zest.fetch('/metrics', { headers: bearer(admin) })).text();
    return Number(new RegExp(`^zest_queue_depth\\{model="long",priority="${priority}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };
  before(async () => {
    home = makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } });
    low = zestCli(home, ['keys', 'add', 'bulk', '--priority', 'low']);
    admin = zestCli(home, ['keys', 'add', 'ops', '--scope', 'admin']);
    zest = await startZest({ home, args: ['--ctx-size', '32768', '--parallel', '1', '--keep-alive', '10m'],
                             env: { ZEST_RESERVED_SLOTS: '0', ZEST_MAX_KEEP_ALIVE: '2m' } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('an inference key cannot raise its priority', async () => {
    const ctl = new AbortController();
    const holder = await zest.fetch('/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(admin) },
      body: JSON.stringify(chatBody('long', { max_tokens: 30000, stream: true })), signal: ctl.signal,
    });
    await holder.body.getReader().read();  // the one slot is taken
    const asked = zest.fetch('/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-priority': 'high', ...bearer(low) },
      body: JSON.stringify(chatBody('long', { max_tokens: 2, priority: 'high' })),
    });
    await waitFor(async () => (await depth('low')) === 1, { timeout: 10000, what: 'the request queued as low' });
    assert.equal(await depth('high'), 0);
    ctl.abort();
    assert.equal((await asked).status, 200);
  });

  test('an inference key cannot pin a model; an admin key can', async () => {
    const ps = async () => (await zest.json('/api/v1/ps', undefined, { headers: bearer(admin) })).data.instances;
    // The keep-alive is booked as the answer ends, a moment after the client has it.
    const expiry = async (ok, what) => {
      let last;
      await waitFor(async () => { [last] = await ps(); return ok(last.expires_in_s); }, { timeout: 5000, what });
      return last.expires_in_s;
    };
    let r = await zest.json('/v1/chat/completions', chatBody('long', { max_tokens: 2, keep_alive: -1 }), { headers: bearer(low) });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    await expiry((s) => s !== null && s <= 120, 'the inference key\'s -1 capped at 2 minutes');
    r = await zest.json('/v1/chat/completions', chatBody('long', { max_tokens: 2, keep_alive: -1 }), { headers: bearer(admin) });
    assert.equal(r.status, 200);
    await expiry((s) => s === null, 'the admin key\'s -1: kept forever');
  });

  test('logs and config are admin-only', async () => {
    for (const p of ['/api/v1/logs', '/api/v1/config']) {
      assert.equal((await zest.json(p, undefined, { headers: bearer(low) })).status, 403, p);
      assert.equal((await zest.json(p, undefined, { headers: bearer(admin) })).status, 200, p);
    }
  });

  test('max_tokens: -1 is refused, and a request without one gets the server default', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('long', { max_tokens: -1 }), { headers: bearer(low) });
    assert.equal(r.status, 400);
    assert.equal(r.data.error.param, 'max_tokens');
    const none = { model: 'long', messages: [{ role: 'user', content: 'x' }], ignore_eos: true };
    const capped = await startZest({ home, env: { ZEST_DEFAULT_MAX_TOKENS: '5' } });
    try {
      const answer = await capped.json('/v1/chat/completions', none, { headers: bearer(low) });
      assert.equal(answer.status, 200, JSON.stringify(answer.data));
      assert.equal(answer.data.usage.completion_tokens, 5);
    } finally { await capped.stop(); }
  });

  test('wrong keys from one address are slowed down; a right key is not refused', async () => {
    const wrong = () => zest.json('/v1/models', undefined, { headers: bearer('zk-wrong') });
    for (let i = 0; i < 30; i++) assert.equal((await wrong()).status, 401);
    const start = performance.now();
    assert.equal((await wrong()).status, 401);
    const took = performance.now() - start;
    assert.ok(took >= 900, `the 31st wrong key was answered after ${took.toFixed(0)} ms`);
    assert.equal((await zest.json('/v1/models', undefined, { headers: bearer(low) })).status, 200);
  });
});

describe('connections', () => {
  test('one local process cannot lock the others out', async () => {
    const zest = await startZest({ home: makeHome({}), args: ['--max-connections-per-client', '8'] });
    try {
      // Slow clients that never finish their headers hold every allowed connection...
      const slow = [];
      for (let i = 0; i < 8; i++) {
        const s = await connect(zest.url);
        s.on('error', () => {});
        s.write('GET /health HTTP/1.1\r\n');
        slow.push(s);
      }
      // ...yet a new client is served: the slowest gives way.
      for (let i = 0; i < 3; i++) assert.equal((await zest.fetch('/health')).status, 200);
      await waitFor(() => slow.filter((s) => s.destroyed || s.readableEnded).length >= 1,
        { timeout: 5000, what: 'a slow connection to be closed' });
      for (const s of slow) s.destroy();
    } finally { await zest.stop(); zest.cleanup(); }
  });

  test('only when every connection is busy is a new one refused with 429', async () => {
    // Three answers in flight hold the three connections: each streams a
    // budget the model cannot finish (its context shifts instead of ending).
    const home = makeHome({ tiny: 'tiny' }, { config: streamsUntilStopped('tiny') });
    const zest = await startZest({ home, args: ['--max-connections-per-client', '3'] });
    const busy = [];
    try {
      for (let i = 0; i < 3; i++) {
        const s = await openStream(zest, chatBody('tiny', { max_tokens: 100000 }), 1);
        assert.equal(s.status, 200);
        busy.push(s);
      }
      const r = await exchange(zest.url, [], { timeout: 3000 });
      assert.equal(r.status, 429, r.received);
      assert.match(r.received, /too many connections/);
      busy.shift().abort();
      await waitFor(async () => (await zest.fetch('/health').catch(() => ({ status: 0 }))).status === 200,
        { timeout: 5000, what: 'room again' });
    } finally { for (const s of busy) s.abort(); await zest.stop(); zest.cleanup(); }
  });
});

// An event stream from `localAddress`: resolves {status, req} once its
// headers came (or the connection failed: status 0).
function eventStream(url, localAddress) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const req = http.get({ host: hostname, port, path: '/api/v1/events', localAddress, agent: false }, (res) => {
      res.on('error', () => {});
      resolve({ status: res.statusCode, req });
    });
    req.on('error', () => resolve({ status: 0, req }));
  });
}

describe('connections from several loopback addresses', () => {
  // Issue 52, MEDIUM 7: limits were per address, and 127.0.0.2 and
  // 127.0.0.3 are other addresses of the same machine: 20 event streams
  // from each filled --max-connections 40, and /health from 127.0.0.1 got
  // 429. Loopback is one client now, which may hold half the total in
  // streams; streams in all leave a quarter for plain requests.
  test('event streams from 127.0.0.2 and 127.0.0.3 leave /health room', async () => {
    const zest = await startZest({ home: makeHome({}), args: ['--max-connections', '40'] });
    const streams = [];
    try {
      for (const from of ['127.0.0.2', '127.0.0.3']) {
        for (let i = 0; i < 20; i++) streams.push(await eventStream(zest.url, from));
      }
      const statuses = streams.map((s) => s.status);
      const opened = statuses.filter((st) => st === 200).length;
      assert.equal(opened, 20, `streams opened: ${statuses.join(',')}`);
      assert.equal(statuses.filter((st) => st === 429).length, 20, statuses.join(','));
      for (let i = 0; i < 3; i++) assert.equal((await zest.fetch('/health')).status, 200);
    } finally { for (const s of streams) s.req.destroy(); await zest.stop(); zest.cleanup(); }
  });
});

describe('busy connections per key', () => {
  // Issue 52, MEDIUM 7: an inference key's requests waiting in the queue
  // held connections without limit, from however many addresses. One key
  // now holds at most half of --max-connections busy: here 5 of 10.
  test('an inference key holds at most half the connections; another key still gets in', async () => {
    const home = makeHome({ tiny: 'tiny' }, { config: streamsUntilStopped('tiny') });
    const bulk = zestCli(home, ['keys', 'add', 'bulk']);
    const admin = zestCli(home, ['keys', 'add', 'ops', '--scope', 'admin']);
    const zest = await startZest({ home, args: ['--max-connections', '10', '--parallel', '1'],
                                   env: { ZEST_RESERVED_SLOTS: '0' } });
    const ctl = new AbortController();
    const ask = (key, body, signal = ctl.signal) => zest.fetch('/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify(body), signal,
    });
    const depth = async () => {
      const text = await (await zest.fetch('/metrics', { headers: bearer(admin) })).text();
      return Number(/^zest_queue_depth\{model="tiny",priority="normal"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const held = [];
    try {
      const holder = await ask(bulk, chatBody('tiny', { max_tokens: 100000, stream: true }));
      assert.equal(holder.status, 200);
      await holder.body.getReader().read();  // the one slot is taken
      for (let i = 0; i < 4; i++) held.push(ask(bulk, chatBody('tiny', { max_tokens: 2 })).catch(() => null));
      await waitFor(async () => (await depth()) === 4, { timeout: 10000, what: "four of bulk's requests queued" });
      const sixth = await ask(bulk, chatBody('tiny', { max_tokens: 2 }), AbortSignal.timeout(10000));
      assert.equal(sixth.status, 429);
      assert.equal(sixth.headers.get('retry-after'), '1');
      assert.match((await sixth.json()).error.message, /too many requests in progress for this API key: at most half of server\.max_connections \(5\)/);
      assert.equal((await zest.json('/v1/models', undefined, { headers: bearer(admin) })).status, 200);
    } finally { ctl.abort(); await Promise.all(held); await zest.stop(); zest.cleanup(); }
  });
});

describe('private directories', () => {
  test('every directory zest creates is 0700, run/ and cache/ included', async () => {
    const parent = makeHome({});
    const home = path.join(parent, 'fresh');
    fs.mkdirSync(path.join(home, 'models'), { recursive: true, mode: 0o700 });
    fs.copyFileSync(path.join(makeHome({ tiny: 'tiny' }), 'models', 'tiny.gguf'), path.join(home, 'models', 'tiny.gguf'));
    const zest = await startZest({ home });
    try {
      assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
      assert.equal((await zest.json('/api/v1/unload', { model: 'tiny' })).status, 200);  // saves its slots
      for (const dir of ['run', 'run/engines', 'cache', 'cache/slots', 'cache/slots/tiny', 'logs']) {
        const mode = fs.statSync(path.join(home, dir)).mode & 0o777;
        assert.equal(mode, 0o700, `${dir} is ${mode.toString(8)}`);
      }
    } finally { await zest.stop(); fs.rmSync(parent, { recursive: true, force: true }); }
  });
});
