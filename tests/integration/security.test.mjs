// Security of the gateway: bind safety, API keys (401/403/429, scopes,
// reload), strict CORS, and the private files zest insists on.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chatBody, makeHome, sseData, startZest, waitFor, zestBin } from '../lib/zest.mjs';

function zestCli(home, args, env = {}) {
  return execFileSync(zestBin, args, {
    env: { ...process.env, ZEST_HOME: home, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

// Runs `zest serve ARGS` expecting it to exit by itself; resolves {code, output}.
function serveUntilExit(home, args, env = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(zestBin, ['serve', '--port', '0', ...args], {
      env: { ...process.env, ZEST_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout.on('data', (d) => { output += d; });
    proc.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`zest kept running:\n${output}`)); }, 15000);
    proc.once('exit', (code) => { clearTimeout(timer); resolve({ code, output }); });
  });
}

function assertOpenAiError(r, status, code) {
  assert.equal(r.status, status, JSON.stringify(r.data));
  assert.equal(typeof r.data.error?.message, 'string', JSON.stringify(r.data));
  assert.ok('type' in r.data.error && 'param' in r.data.error && 'code' in r.data.error);
  if (code) assert.equal(r.data.error.code, code);
}

const bearer = (key) => ({ authorization: `Bearer ${key}` });

describe('bind safety', () => {
  test('a non-loopback host without keys refuses to start', async () => {
    const home = makeHome({});
    try {
      const r = await serveUntilExit(home, ['--host', '0.0.0.0']);
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /refusing to listen on 0\.0\.0\.0 without API keys/);
      assert.doesNotMatch(r.output, /listening on http/);
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });

  test('the Ollama listener follows the same rule; a malformed address is refused', async () => {
    const home = makeHome({});
    try {
      let r = await serveUntilExit(home, [], { ZEST_OLLAMA_LISTEN: '0.0.0.0:11434' });
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /refusing to listen on 0\.0\.0\.0 without API keys/);
      r = await serveUntilExit(home, [], { ZEST_OLLAMA_LISTEN: 'localhost' });
      assert.notEqual(r.code, 0, r.output);
      assert.match(r.output, /server\.ollama_listen: "localhost" is not HOST:PORT/);
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });

  test('--insecure-no-auth or a key lets it start on 0.0.0.0', async () => {
    for (const opts of [{ args: ['--host', '0.0.0.0', '--insecure-no-auth'] },
      { args: ['--host', '0.0.0.0'], env: { ZEST_API_KEY: 'k-single-test-key' } }]) {
      const zest = await startZest({ home: makeHome({}), ...opts });
      try {
        assert.match(zest.logs(), /listening on http:\/\/0\.0\.0\.0:/);
        const port = new URL(zest.url).port;
        const r = await fetch(`http://127.0.0.1:${port}/health`);
        assert.equal(r.status, 200);
      } finally { await zest.stop(); zest.cleanup(); }
    }
  });

  test('the default bind is loopback', async () => {
    const zest = await startZest({ home: makeHome({}) });
    try { assert.match(zest.url, /^http:\/\/127\.0\.0\.1:/); } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('API keys', () => {
  let zest, home, admin, user, limited;
  const single = 'single-key-for-tests-0123456789';
  before(async () => {
    home = makeHome({ tiny: 'tiny' });
    admin = zestCli(home, ['keys', 'add', 'ops', '--scope', 'admin']);
    user = zestCli(home, ['keys', 'add', 'app', '--priority', 'low']);
    limited = zestCli(home, ['keys', 'add', 'slow', '--rpm', '3']);
    zest = await startZest({ home, env: { ZEST_API_KEY: single } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('keys are printed once, stored only as hashes, in a 0600 file', () => {
    assert.match(admin, /^zk-[A-Za-z0-9_-]{32}$/);
    const file = path.join(home, 'keys.json');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const text = fs.readFileSync(file, 'utf8');
    for (const key of [admin, user, limited]) assert.ok(!text.includes(key));
    assert.equal(JSON.parse(text).keys.length, 3);
    const list = zestCli(home, ['keys', 'list']);
    assert.match(list, /ops\s+admin\s+normal/);
    assert.match(list, /app\s+inference\s+low/);
    assert.ok(!list.includes(admin));
  });

  test('/health and /ready are open and say only ok or ready; the details need a key', async () => {
    const open = await zest.json('/health');
    assert.equal(open.status, 200);
    assert.deepEqual(open.data, { status: 'ok' });
    const ready = await zest.json('/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.data, { status: 'ready' });
    // Ollama's liveness probe is open too; its model list is not.
    assert.equal(await (await zest.fetch('/')).text(), 'Ollama is running');
    assert.equal((await zest.json('/api/tags')).status, 401);
    assert.equal((await zest.json('/api/tags', undefined, { headers: bearer(user) })).status, 200);
    assert.equal((await zest.json('/api/v1/health')).status, 401);
    const details = await zest.json('/api/v1/health', undefined, { headers: bearer(user) });
    assert.equal(details.status, 200);
    assert.ok(Array.isArray(details.data.instances));
  });

  test('a missing or wrong key is 401 in OpenAI shape', async () => {
    let r = await zest.json('/v1/models');
    assertOpenAiError(r, 401, 'invalid_api_key');
    assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    assert.match(r.data.error.message, /missing API key/);
    r = await zest.json('/v1/models', undefined, { headers: bearer(`${user}x`) });
    assertOpenAiError(r, 401, 'invalid_api_key');
    r = await zest.json('/v1/chat/completions', chatBody('tiny'), { headers: { authorization: `Basic ${user}` } });
    assertOpenAiError(r, 401);
  });

  test('Bearer and x-api-key both work; the single --api-key too', async () => {
    assert.equal((await zest.json('/v1/models', undefined, { headers: bearer(user) })).status, 200);
    assert.equal((await zest.json('/v1/models', undefined, { headers: { 'x-api-key': user } })).status, 200);
    assert.equal((await zest.json('/v1/models', undefined, { headers: bearer(single) })).status, 200);
  });

  test('admin routes need an admin key: 403 for inference keys', async () => {
    for (const [p, body] of [['/api/v1/unload', {}], ['/api/v1/pull', {}], ['/api/v1/add', {}], ['/api/v1/delete', {}],
      ['/api/copy', {}]]) {
      const r = await zest.json(p, body, { headers: bearer(user) });
      assertOpenAiError(r, 403, 'forbidden');
      assert.match(r.data.error.message, /needs an 'admin' key/);
      const ok = await zest.json(p, body, { headers: bearer(admin) });
      assert.notEqual(ok.status, 403, p);
      assert.notEqual(ok.status, 401, p);
    }
    const del = await zest.json('/api/v1/models/nothing', undefined, { method: 'DELETE', headers: bearer(user) });
    assertOpenAiError(del, 403);
    const ollamaDelete = await zest.json('/api/delete', { model: 'tiny' }, { method: 'DELETE', headers: bearer(user) });
    assert.equal(ollamaDelete.status, 403);
    assertOpenAiError(await zest.json('/api/v1/config', undefined, { headers: bearer(user) }), 403);
  });

  test('zest config never shows the key', async () => {
    const r = await zest.json('/api/v1/config', undefined, { headers: bearer(single) });
    assert.equal(r.status, 200);
    const row = r.data.settings.find((s) => s.key === 'server.api_key');
    assert.equal(row.value, '(set)');
    assert.ok(!JSON.stringify(r.data).includes(single));
  });

  test('/metrics needs a key unless metrics.public', async () => {
    assert.equal((await zest.fetch('/metrics')).status, 401);
    const scraped = await zest.fetch('/metrics', { headers: bearer(user) });
    assert.equal(scraped.status, 200);
    // Refused keys are counted (this test's 401 and the earlier ones).
    const text = await scraped.text();
    const auth = /^zest_rejections_total\{model="",reason="auth"\} (\d+)$/m.exec(text);
    assert.ok(Number(auth?.[1]) >= 1, text.split('\n').filter((l) => l.includes('rejections')).join('\n'));
    const open = await startZest({ home: makeHome({}), env: { ZEST_API_KEY: single, ZEST_METRICS_PUBLIC: 'true' } });
    try { assert.equal((await open.fetch('/metrics')).status, 200); } finally { await open.stop(); open.cleanup(); }
  });

  test('a rate-limited key gets 429 with Retry-After', async () => {
    const statuses = [];
    let limitedReply;
    for (let i = 0; i < 5; i++) {
      const r = await zest.json('/v1/models', undefined, { headers: bearer(limited) });
      statuses.push(r.status);
      if (r.status === 429) limitedReply = r;
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assertOpenAiError(limitedReply, 429, 'rate_limit_exceeded');
    const retry = Number(limitedReply.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 20, `Retry-After ${retry}`);
    // Other keys are not affected.
    assert.equal((await zest.json('/v1/models', undefined, { headers: bearer(user) })).status, 200);
  });

  test('inference with a key reaches the engine', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('tiny'), { headers: bearer(user) });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.equal(r.data.object, 'chat.completion');
    // Every inference route takes an inference key: past the gate, these
    // bodies are refused for what they hold (400), not for the key (403).
    for (const p of ['/v1/images/generations', '/v1/audio/transcriptions', '/v1/audio/translations',
      '/api/v1/images/generations', '/v1/messages', '/v1/messages/count_tokens', '/api/chat',
      '/api/generate', '/v1/responses']) {
      const refused = await zest.json(p, {}, { headers: bearer(user) });
      assert.equal(refused.status, 400, `${p}: ${JSON.stringify(refused.data)}`);
    }
  });

  test("engines' process ids and socket paths are for admin keys only: ps, health and events", async () => {
    const chat = await zest.json('/v1/chat/completions', chatBody('tiny'), { headers: bearer(user) });
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    const firstEvent = async (key) => {
      const controller = new AbortController();
      const res = await zest.fetch('/api/v1/events', { headers: bearer(key), signal: controller.signal });
      assert.equal(res.status, 200);
      let event;
      for await (const data of sseData(res)) {
        event = JSON.parse(data);
        break;
      }
      controller.abort();  // after the loop: aborting inside it rejects the stream's read
      if (!event) throw new Error('no event');
      return event;
    };
    const asUser = [(await zest.json('/api/v1/ps', undefined, { headers: bearer(user) })).data.instances,
      (await zest.json('/api/v1/health', undefined, { headers: bearer(user) })).data.instances,
      (await firstEvent(user)).ps.instances];
    for (const instances of asUser) {
      assert.ok(instances.some((i) => i.model === 'tiny' && i.state), JSON.stringify(instances));
      for (const i of instances) assert.ok(!('pid' in i) && !('socket' in i), JSON.stringify(i));
    }
    const asAdmin = [(await zest.json('/api/v1/ps', undefined, { headers: bearer(admin) })).data.instances,
      (await firstEvent(admin)).ps.instances];
    for (const instances of asAdmin) {
      const tiny = instances.find((i) => i.model === 'tiny');
      assert.ok(tiny.pid > 0 && tiny.socket.length > 0, JSON.stringify(tiny));
    }
  });

  test("host paths are for admin keys only: engines, system-info, cluster, tags, models (issue 52, 16)", async () => {
    const get = async (path, key) => zest.json(path, undefined, { headers: bearer(key) });
    const adminEngines = (await get('/api/v1/engines', admin)).data.engines;
    const binaries = adminEngines.map((e) => e.binary).filter(Boolean);
    assert.ok(binaries.length > 0, JSON.stringify(adminEngines));
    assert.equal((await get('/api/v1/cluster', admin)).status, 200);
    assert.equal((await get('/api/v1/cluster', user)).status, 403);
    for (const path of ['/api/v1/engines', '/api/v1/system-info', '/api/tags', '/v1/models', '/v1/models/tiny',
      '/api/v1/models']) {
      const r = await get(path, user);
      assert.equal(r.status, 200, path);
      const text = JSON.stringify(r.data);
      // Neither ZEST_HOME (models, store) nor any engine's binary or tree.
      assert.ok(!text.includes(home), `${path} shows ${home}: ${text}`);
      for (const b of binaries) assert.ok(!text.includes(b), `${path} shows ${b}: ${text}`);
      assert.ok(!/"(binary|rootfs|sandbox)":/.test(text), `${path}: ${text}`);
    }
    const engines = (await get('/api/v1/engines', user)).data.engines;
    assert.deepEqual(engines.map((e) => e.name), adminEngines.map((e) => e.name));
    // The model's file by name for an inference key, by path for an admin.
    assert.equal((await get('/v1/models/tiny', user)).data.path, 'tiny.gguf');
    assert.ok((await get('/v1/models/tiny', admin)).data.path.startsWith(home));
  });

  test("an inference key's stats are its own: its last request, no totals", async () => {
    // chatBody asks ignore_eos: each answer has exactly max_tokens tokens.
    const mine = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 3 }), { headers: bearer(user) });
    assert.equal(mine.status, 200, JSON.stringify(mine.data));
    const theirs = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 5 }), { headers: bearer(admin) });
    assert.equal(theirs.status, 200, JSON.stringify(theirs.data));
    const asUser = (await zest.json('/api/v1/stats', undefined, { headers: bearer(user) })).data;
    assert.equal(asUser.output_tokens, 3, JSON.stringify(asUser));
    assert.ok(!('totals' in asUser), JSON.stringify(asUser));
    const asAdmin = (await zest.json('/api/v1/stats', undefined, { headers: bearer(admin) })).data;
    assert.equal(asAdmin.output_tokens, 5, JSON.stringify(asAdmin));
    assert.ok(asAdmin.totals.requests >= 2, JSON.stringify(asAdmin));
  });

  test('Anthropic clients send the key as x-api-key', async () => {
    const body = { model: 'tiny', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] };
    const ok = await zest.json('/v1/messages', body, { headers: { 'x-api-key': user, 'anthropic-version': '2023-06-01' } });
    assert.equal(ok.status, 200, JSON.stringify(ok.data));
    assert.equal(ok.data.type, 'message');
    const none = await zest.json('/v1/messages', body);
    assert.equal(none.status, 401);
  });

  test('a stored response is its key\'s own: another key gets 404, as for no such id', async () => {
    const made = await zest.json('/v1/responses', { model: 'tiny', input: 'hi', max_output_tokens: 2 }, { headers: bearer(user) });
    assert.equal(made.status, 200, JSON.stringify(made.data));
    const id = made.data.id;
    assert.equal((await zest.json(`/v1/responses/${id}`, undefined, { headers: bearer(user) })).status, 200);
    for (const other of [admin]) {  // (the rate-limited key has no requests left here)
      const seen = await zest.json(`/v1/responses/${id}`, undefined, { headers: bearer(other) });
      assert.equal(seen.status, 404);
      const continued = await zest.json('/v1/responses', { model: 'tiny', input: 'x', previous_response_id: id }, { headers: bearer(other) });
      assert.equal(continued.status, 404);
    }
    const gone = await zest.fetch(`/v1/responses/${id}`, { method: 'DELETE', headers: bearer(admin) });
    assert.equal(gone.status, 404, 'not even an admin key deletes another key\'s response');
    const deleted = await zest.fetch(`/v1/responses/${id}`, { method: 'DELETE', headers: bearer(user) });
    assert.equal(deleted.status, 200);
  });

  test('keys added or removed while serving apply within seconds', async () => {
    // zest re-reads the key file when it changes (checked once a second).
    const status = async () => (await zest.json('/v1/models', undefined, { headers: bearer(late) })).status;
    const late = zestCli(home, ['keys', 'add', 'late']);
    await waitFor(async () => (await status()) === 200, { timeout: 5000, interval: 100, what: 'the new key accepted' });
    zestCli(home, ['keys', 'rm', 'late']);
    await waitFor(async () => (await status()) === 401, { timeout: 5000, interval: 100, what: 'the removed key refused' });
  });

  test('the CLI sends ZEST_API_KEY', () => {
    const out = zestCli(home, ['list'], { ZEST_HOST: zest.url, ZEST_API_KEY: user });
    assert.match(out, /tiny/);
    assert.throws(() => zestCli(home, ['list'], { ZEST_HOST: zest.url, ZEST_API_KEY: '' }), /401|API key/);
  });

  test('an unauthenticated client cannot make zest read a big body', async () => {
    const { exchange } = await import('../lib/raw_http.mjs');
    // Under the body limit, so only the missing key stops it: the answer
    // comes after the headers, without waiting for the 30 MiB.
    const size = 30 * 1024 * 1024;
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    const start = Date.now();
    const r = await exchange(zest.url, [head, Buffer.alloc(64 * 1024, 0x20)]);
    assert.equal(r.status, 401, r.received.slice(0, 300));
    assert.match(r.received, /Connection: close/i);
    assert.ok(Date.now() - start < 3000);
  });
});

describe('private files', () => {
  test('a group/world-readable keys file is refused', async () => {
    const home = makeHome({});
    try {
      zestCli(home, ['keys', 'add', 'a']);
      fs.chmodSync(path.join(home, 'keys.json'), 0o644);
      const r = await serveUntilExit(home, []);
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /keys\.json has mode 0644 .* run: chmod 0600/);
      assert.throws(() => zestCli(home, ['keys', 'list']), /mode 0644/);
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });

  test('config.toml holding a key must be private; writable by others is refused', async () => {
    const home = makeHome({});
    const file = path.join(home, 'config.toml');
    try {
      fs.writeFileSync(file, '[server]\napi_key = "from-config-file-key"\n', { mode: 0o644 });
      fs.chmodSync(file, 0o644);
      let r = await serveUntilExit(home, []);
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /holds server\.api_key and must be private/);
      fs.writeFileSync(file, '[server]\nport = 0\n');
      fs.chmodSync(file, 0o666);
      r = await serveUntilExit(home, []);
      assert.equal(r.code, 2, r.output);
      assert.match(r.output, /config\.toml has mode 0666 but group or others may change it/);
      fs.writeFileSync(file, '[server]\napi_key = "from-config-file-key"\n');
      fs.chmodSync(file, 0o600);
      const zest = await startZest({ home });
      try {
        assert.equal((await zest.fetch('/v1/models')).status, 401);
        assert.equal((await zest.fetch('/v1/models', { headers: bearer('from-config-file-key') })).status, 200);
      } finally { await zest.stop(); }
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });
});

describe('CORS', () => {
  let zest;
  before(async () => {
    zest = await startZest({ home: makeHome({}), args: ['--cors-origins', 'https://app.example.com, https://b.example.org'] });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  const get = (origin) => zest.fetch('/v1/models', { headers: { origin } });

  test('configured and loopback origins are allowed and echoed exactly', async () => {
    for (const origin of ['https://app.example.com', 'https://b.example.org', 'http://localhost:5173',
      'http://127.0.0.1:8080', 'http://[::1]:3000']) {
      const r = await get(origin);
      assert.equal(r.status, 200, origin);
      assert.equal(r.headers.get('access-control-allow-origin'), origin);
      assert.match(r.headers.get('vary'), /Origin/);
    }
  });

  test('unknown origins are refused and never reflected', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.net', 'null',
      'http://localhost.evil.net', 'https://app.example.com:444', 'file://']) {
      const r = await get(origin);
      assert.equal(r.status, 403, origin);
      assert.equal(r.headers.get('access-control-allow-origin'), null, origin);
      const body = await r.json();
      assert.match(body.error.message, /not allowed/);
    }
    // A "simple" cross-origin POST (no preflight) is refused too.
    const r = await zest.fetch('/api/v1/unload', { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' }, body: '{"model":"x"}' });
    assert.equal(r.status, 403);
  });

  test('preflight is answered for allowed origins only', async () => {
    const pre = (origin) => zest.fetch('/v1/chat/completions', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    let r = await pre('https://app.example.com');
    assert.equal(r.status, 204);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.match(r.headers.get('access-control-allow-methods'), /POST/);
    assert.match(r.headers.get('access-control-allow-headers'), /authorization/);
    r = await pre('https://evil.example');
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
  });

  test('requests without Origin (non-browser clients) are unaffected', async () => {
    const r = await zest.fetch('/v1/models');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
  });
});

describe('model isolation', () => {
  test('directories zest creates are 0700', async () => {
    const parent = makeHome({});
    const home = path.join(parent, 'fresh-home');
    const zest = await startZest({ home });
    try {
      for (const dir of [home, path.join(home, 'models'), path.join(home, 'logs')]) {
        assert.equal(fs.statSync(dir).mode & 0o777, 0o700, dir);
      }
    } finally { await zest.stop(); fs.rmSync(parent, { recursive: true, force: true }); }
  });

  test('models in world-writable places are refused with a clear error', async () => {
    const home = makeHome({ tiny: 'tiny', other: 'tiny' });
    const zest = await startZest({ home });
    try {
      const models = path.join(home, 'models');
      fs.chmodSync(path.join(models, 'other.gguf'), 0o666);
      let r = await zest.json('/v1/chat/completions', chatBody('other'));
      assert.equal(r.status, 500, JSON.stringify(r.data));
      assert.match(r.data.error.message, /refusing to load model 'other': the file .*other\.gguf is world-writable \(mode 0666\)/);
      fs.chmodSync(path.join(models, 'other.gguf'), 0o644);
      fs.chmodSync(models, 0o777);
      r = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(r.status, 500, JSON.stringify(r.data));
      assert.match(r.data.error.message, /the directory .*models is world-writable .*chmod o-w/);
      fs.chmodSync(models, 0o755);
      r = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(r.status, 200, JSON.stringify(r.data));
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('key priority', () => {
  let zest, bulk, vip;
  const send = (key, body, signal) => zest.fetch('/v1/chat/completions', {
    method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body), signal,
  }).then(async (res) => ({ status: res.status, data: await res.json().catch(() => null), at: performance.now() }));
  const depth = async (priority) => {
    const text = await (await zest.fetch('/metrics')).text();
    return Number(new RegExp(`^zest_queue_depth\\{model="long",priority="${priority}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };

  before(async () => {
    const home = makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } });
    bulk = zestCli(home, ['keys', 'add', 'bulk', '--priority', 'low']);
    vip = zestCli(home, ['keys', 'add', 'vip', '--priority', 'high']);
    // No slot reserved for high priority: the vip key's request must queue
    // (and overtake the bulk one) rather than start at once.
    zest = await startZest({ home, args: ['--ctx-size', '32768', '--parallel', '1'],
                             env: { ZEST_METRICS_PUBLIC: 'true', ZEST_RESERVED_SLOTS: '0' } });
    assert.equal((await send(vip, chatBody('long'))).status, 200);  // load
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test("a key's priority is its requests' default queue priority", async () => {
    const ctl = new AbortController();
    const holder = await zest.fetch('/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(vip) },
      body: JSON.stringify(chatBody('long', { max_tokens: 30000, stream: true })), signal: ctl.signal,
    });
    const reader = holder.body.getReader();
    await reader.read();  // generating: the one slot is taken
    const low = send(bulk, chatBody('long', { max_tokens: 4 }));
    await waitFor(async () => (await depth('low')) === 1, { what: 'the bulk key queued as low', timeout: 10000 });
    const high = send(vip, chatBody('long', { max_tokens: 4 }));
    await waitFor(async () => (await depth('high')) === 1, { what: 'the vip key queued as high', timeout: 10000 });
    ctl.abort();
    const [l, h] = await Promise.all([low, high]);
    assert.equal(l.status, 200);
    assert.equal(h.status, 200);
    assert.ok(h.at < l.at, 'the high-priority key was served first');
  });
});

describe('engine extra args', () => {
  test('a per-model extra argument zest owns stops zest at start, naming the argument', async () => {
    const home = makeHome({ tiny: 'tiny' });
    try {
      for (const [arg, why] of [['--port', /socket/], ['--api-key-file', /authentication/], ['--path', /static files/]]) {
        fs.writeFileSync(path.join(home, 'config.toml'), `[models."tiny"]\nextra_args = ["--temp", "0.5", "${arg}", "x"]\n`, { mode: 0o600 });
        const p = spawn(zestBin, ['serve', '--port', '0'], { env: { ...process.env, ZEST_HOME: home } });
        let out = '';
        p.stdout.on('data', (d) => { out += d; });
        p.stderr.on('data', (d) => { out += d; });
        const code = await new Promise((resolve) => p.on('exit', resolve));
        assert.notEqual(code, 0, out);
        assert.match(out, new RegExp(`models\\."tiny"\\.extra_args: extra engine argument '${arg}' is reserved`));
        assert.match(out, why);
      }
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });
});
