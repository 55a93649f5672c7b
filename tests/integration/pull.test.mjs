// zest pull against a fake Hugging Face hub (tests/lib/fake_hub.mjs): the
// real zest, real sockets, real files in a temporary HF cache.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startZest, makeHome, syntheticModel, syntheticDraftPair, zestBin, chatBody, descendants, waitFor } from '../lib/zest.mjs';
import { needs } from '../lib/requirements.mjs';
import { startFakeHub } from '../lib/fake_hub.mjs';
import { Ollama } from 'ollama';

const MiB = 1 << 20;
const TINY = 'test-org/Tiny-GGUF';
const BIG = 'test-org/Big-GGUF';
let hub;
let bigData;

before(async () => {
  bigData = crypto.randomBytes(64 * MiB);
  const pair = syntheticDraftPair('tiny');
  hub = await startFakeHub({
    repos: {
      [TINY]: { files: { 'tiny-Q4_K_M.gguf': fs.readFileSync(syntheticModel('tiny')), 'README.md': Buffer.from('hi') } },
      [BIG]: { files: { 'big-Q4_K_M.gguf': bigData } },
      'test-org/Flaky-GGUF': { files: { 'flaky-Q8_0.gguf': crypto.randomBytes(3 * MiB) } },
      'test-org/Bad-GGUF': { files: { 'bad-Q4_K_M.gguf': crypto.randomBytes(2 * MiB) } },
      'test-org/Hostile-GGUF': { files: { 'x-Q4_K_M.gguf': Buffer.from('x') } },
      // Catalog entries (catalog/models.json) and the usual draft it names
      // for the first: a synthetic pair that shares its tokenizer.
      'unsloth/Qwen3-8B-GGUF': { files: { 'Qwen3-8B-Q4_K_M.gguf': fs.readFileSync(pair.target) } },
      'unsloth/Qwen3-0.6B-GGUF': { files: { 'Qwen3-0.6B-Q8_0.gguf': fs.readFileSync(pair.draft) } },
    },
  });
});
after(async () => { await hub?.close(); });

const tmpCache = () => fs.mkdtempSync(path.join(os.tmpdir(), 'zest-hf-cache-'));

async function withZest(env, fn, { prefix = [] } = {}) {
  const cache = env.HF_HUB_CACHE ?? tmpCache();
  const zest = await startZest({ home: makeHome({}), env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache, ...env }, prefix });
  try {
    return await fn(zest, cache);
  } finally {
    await zest.stop();
    zest.cleanup();
  }
}

const repoDir = (cache, repo) => path.join(cache, `models--${repo.replace('/', '--')}`);
const parse = (events) => events.map((e) => JSON.parse(e));
function blobs(cache, repo) {
  const dir = path.join(repoDir(cache, repo), 'blobs');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}
function snapshots(cache, repo) {
  const dir = path.join(repoDir(cache, repo), 'snapshots');
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }) : [];
}

test('pull streams progress, publishes into the HF cache, and the model then chats', async () => {
  hub.resetCounters();
  await withZest({}, async (zest, cache) => {
    const { status, events } = await zest.stream('/api/v1/pull', { model: TINY });
    assert.equal(status, 200);
    const all = parse(events);
    const last = all.at(-1);
    assert.equal(last.status, 'success', JSON.stringify(last));
    assert.equal(last.model, `${TINY}:Q4_K_M`);
    assert.ok(all.some((e) => e.status === 'downloading' && e.file === 'tiny-Q4_K_M.gguf' && e.total > 0));
    const file = hub.file(TINY, 'tiny-Q4_K_M.gguf');
    assert.deepEqual(blobs(cache, TINY), [file.sha256]);
    assert.equal(fs.statSync(path.join(repoDir(cache, TINY), 'blobs', file.sha256)).mode & 0o777, 0o600);
    const commit = fs.readFileSync(path.join(repoDir(cache, TINY), 'refs', 'main'), 'utf8');
    const link = path.join(repoDir(cache, TINY), 'snapshots', commit, 'tiny-Q4_K_M.gguf');
    assert.equal(fs.readlinkSync(link), `../../blobs/${file.sha256}`);
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.equal(Number(/^zest_download_bytes_total (\d+)$/m.exec(metrics)?.[1]), hub.bytesServed);

    const models = (await zest.json('/v1/models')).data.data.map((m) => m.id);
    assert.ok(models.includes(`${TINY}:Q4_K_M`), models.join(','));
    const chat = await zest.json('/v1/chat/completions', chatBody(`${TINY}:Q4_K_M`));
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    assert.equal(chat.data.choices[0].message.role, 'assistant');

    // Pulling again fetches nothing; non-streamed answers are one JSON object.
    const served = hub.bytesServed;
    const again = await zest.json('/api/v1/pull', { model: `hf.co/${TINY}/tiny-Q4_K_M.gguf`, stream: false });
    assert.equal(again.status, 200);
    assert.equal(again.data.model, `${TINY}:Q4_K_M`);
    assert.equal(hub.bytesServed, served);
  });
});

test('Ollama\'s pull (official ollama client): progress lines as Ollama streams them, then the model serves', async () => {
  hub.resetCounters();
  await withZest({}, async (zest) => {
    const ollama = new Ollama({ host: zest.url });
    const parts = [];
    for await (const part of await ollama.pull({ model: `${TINY}:Q4_K_M`, stream: true })) parts.push(part);
    assert.equal(parts[0].status, 'pulling manifest');
    assert.equal(parts.at(-1).status, 'success');
    const progress = parts.filter((p) => p.status.startsWith('pulling ') && p.total);
    assert.ok(progress.length >= 1, JSON.stringify(parts));
    const size = fs.statSync(syntheticModel('tiny')).size;
    assert.ok(progress.every((p) => p.digest === 'tiny-Q4_K_M.gguf' && p.total === size && p.completed <= p.total));
    assert.equal(progress.at(-1).completed, size);
    const { models } = await ollama.list();
    assert.ok(models.some((m) => m.name === `${TINY}:Q4_K_M`), JSON.stringify(models.map((m) => m.name)));
    const reply = await ollama.chat({ model: `${TINY}:Q4_K_M`, messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_predict: 2 } });
    assert.equal(reply.done, true);
    // Whole: one {"status":"success"}; an unknown repo: Ollama's error.
    assert.deepEqual(await ollama.pull({ model: `${TINY}:Q4_K_M`, stream: false }), { status: 'success' });
    await assert.rejects(ollama.pull({ model: 'test-org/Missing-GGUF:Q4_K_M', stream: false }), (e) => e.status_code === 404 && typeof e.error === 'string');
    await assert.rejects(async () => { for await (const _ of await ollama.pull({ model: 'test-org/Missing-GGUF:Q4_K_M', stream: true })); }, /Missing-GGUF|not found|404/);
  });
});

test('without the revision API the commit comes from X-Repo-Commit of a resolve answer', async () => {
  hub.noRevisionApi = true;
  hub.resetCounters();
  try {
    await withZest({}, async (zest, cache) => {
      const { status, events } = await zest.stream('/api/v1/pull', { model: TINY });
      assert.equal(status, 200);
      const last = parse(events).at(-1);
      assert.equal(last.status, 'success', JSON.stringify(last));
      const repo = hub.repos.get(TINY);
      assert.equal(fs.readFileSync(path.join(repoDir(cache, TINY), 'refs', 'main'), 'utf8'), repo.commit);
      const file = hub.file(TINY, 'tiny-Q4_K_M.gguf');
      const link = path.join(repoDir(cache, TINY), 'snapshots', repo.commit, 'tiny-Q4_K_M.gguf');
      assert.equal(fs.readlinkSync(link), `../../blobs/${file.sha256}`);
      assert.ok(hub.resolves >= 2, `the commit probe and the download: ${hub.resolves}`);
      // An unknown repo is still "not found", not a failed probe.
      const missing = await zest.json('/api/v1/pull', { model: 'test-org/Missing-GGUF', stream: false });
      assert.equal(missing.status, 404, JSON.stringify(missing.data));
    });
  } finally {
    hub.noRevisionApi = false;
  }
});

test('500, a dropped connection and 429 with Retry-After are retried; the file verifies', async () => {
  hub.resetCounters();
  hub.fail('flaky-Q8_0.gguf', { status: 500 }, { drop: 1000000 }, { status: 429, retryAfter: 1 });
  await withZest({}, async (zest, cache) => {
    const started = Date.now();
    const r = await zest.json('/api/v1/pull', { model: 'test-org/Flaky-GGUF:Q8_0', stream: false });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.ok(Date.now() - started >= 1000, 'Retry-After was honoured');
    const file = hub.file('test-org/Flaky-GGUF', 'flaky-Q8_0.gguf');
    assert.deepEqual(blobs(cache, 'test-org/Flaky-GGUF'), [file.sha256]);
    // Resumed after the drop: only the missing bytes were fetched again.
    assert.equal(hub.served('flaky-Q8_0.gguf'), file.size);
  });
});

test('a hash mismatch is an error and publishes nothing', async () => {
  hub.fail('bad-Q4_K_M.gguf', { corrupt: true });
  await withZest({}, async (zest, cache) => {
    const { events } = await zest.stream('/api/v1/pull', { model: 'test-org/Bad-GGUF' });
    const last = parse(events).at(-1);
    assert.match(last.error?.message ?? '', /sha256 mismatch/);
    assert.deepEqual(blobs(cache, 'test-org/Bad-GGUF'), []);
    assert.deepEqual(snapshots(cache, 'test-org/Bad-GGUF'), []);
  });
});

test('401 explains gated models and HF_TOKEN; the token is sent when set', async () => {
  hub.token = 'sekrit';
  try {
    await withZest({}, async (zest) => {
      const r = await zest.json('/api/v1/pull', { model: TINY, stream: false });
      assert.notEqual(r.status, 200);
      assert.match(r.data.error.message, /gated or private.*HF_TOKEN/);
    });
    await withZest({ HF_TOKEN: 'sekrit' }, async (zest) => {
      const r = await zest.json('/api/v1/pull', { model: TINY, stream: false });
      assert.equal(r.status, 200, JSON.stringify(r.data));
    });
  } finally {
    hub.token = null;
  }
});

test('a paginated file list is followed on the hub, never to another host', async () => {
  // A second server stands in for a foreign host; it records what it gets.
  const seen = [];
  const foreign = http.createServer((req, res) => { seen.push(req.headers.authorization ?? ''); res.end('[]'); });
  await new Promise((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  hub.token = 'sekrit';
  hub.pageSize = 1;
  try {
    await withZest({ HF_TOKEN: 'sekrit' }, async (zest) => {
      // Same host: every page is read (README.md and the model are on pages 1 and 2).
      let r = await zest.json('/api/v1/pull', { model: TINY, stream: false });
      assert.equal(r.status, 200, JSON.stringify(r.data));
      hub.nextPageOrigin = `http://localhost:${foreign.address().port}`;
      r = await zest.json('/api/v1/pull', { model: TINY, stream: false });
      assert.notEqual(r.status, 200);
      assert.match(r.data.error.message, /continues on another host/);
    });
    assert.deepEqual(seen, [], 'the foreign host was never asked, so never got the token');
  } finally {
    hub.token = null;
    hub.pageSize = 0;
    hub.nextPageOrigin = null;
    foreign.close();
  }
});

// A real full disk, not a pretended one: zest runs in a bubblewrap mount
// namespace where its Hugging Face cache is a 1 MiB tmpfs (bwrap --size;
// no root needed), so the check under test is zest's own statvfs. What is
// in that tmpfs is read through /proc/PID/root, zest's view of the files.
const bwrap = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => fs.existsSync(p));
test('not enough disk space: a clear error before any byte, nothing published',
  { skip: needs(Boolean(bwrap), 'bubblewrap (bwrap)') }, async () => {
    hub.resetCounters();
    const cache = tmpCache();
    const prefix = [bwrap, '--dev-bind', '/', '/', '--size', String(MiB), '--tmpfs', cache, '--die-with-parent', '--'];
    await withZest({ HF_HUB_CACHE: cache }, async (zest) => {
      // Inside bwrap the cache is the tmpfs; zest is bwrap's child.
      const inner = descendants(zest.pid).find((p) => p.comm === 'zest')?.pid;
      assert.ok(inner, 'zest under bwrap');
      const view = `/proc/${inner}/root${cache}`;
      assert.equal(fs.statfsSync(view).blocks * fs.statfsSync(view).bsize, MiB, 'a 1 MiB filesystem');
      const r = await zest.json('/api/v1/pull', { model: BIG, stream: false });
      assert.equal(r.status, 413, JSON.stringify(r.data));
      assert.match(r.data.error.message, /not enough disk space in .*: the download needs 64\.0 MiB, 1\.0 MiB available$/);
      assert.equal(hub.bytesServed, 0);
      assert.deepEqual(snapshots(view, BIG), []);
      assert.deepEqual(blobs(view, BIG), [], 'no partial blob left');
    }, { prefix });
  });

test('unsafe names from the hub or the client are refused', async () => {
  hub.treeOverride.set('test-org/Hostile-GGUF', [
    { type: 'file', path: '../../../escape-Q4_K_M.gguf', size: 1, lfs: { oid: 'a'.repeat(64), size: 1 } },
  ]);
  await withZest({}, async (zest, cache) => {
    const r = await zest.json('/api/v1/pull', { model: 'test-org/Hostile-GGUF', stream: false });
    assert.equal(r.status, 400);
    assert.match(r.data.error.message, /unsafe file name/);
    for (const model of ['../etc/passwd', 'hf.co/org/repo/../../x.gguf', 'org/re po']) {
      const bad = await zest.json('/api/v1/pull', { model, stream: false });
      assert.equal(bad.status, 400, model);
    }
    assert.ok(!fs.readdirSync(path.dirname(cache)).some((f) => f.startsWith('escape')));
  });
});

test('parallel ranges give the same sha; a SIGKILLed server resumes without refetching', async () => {
  const cache = tmpCache();
  const env = { HF_HUB_CACHE: cache, ZEST_PULL_CONNECTIONS: '4' };
  const file = hub.file(BIG, 'big-Q4_K_M.gguf');
  hub.resetCounters();
  hub.throttle = 6 * MiB;  // per connection
  const zest = await startZest({ home: makeHome({}), env: { HF_ENDPOINT: hub.url, ...env } });
  const pull = zest.json('/api/v1/pull', { model: BIG, stream: false }).catch(() => null);
  await waitFor(() => hub.bytesServed >= 32 * MiB, { timeout: 20000, what: '32 MiB served' });
  await zest.stop('SIGKILL');
  await pull;
  zest.cleanup();
  hub.throttle = 0;
  const first = hub.bytesServed;
  assert.ok(fs.existsSync(path.join(repoDir(cache, BIG), 'blobs', `${file.sha256}.incomplete.ranges`)));
  hub.resetCounters();
  await withZest(env, async (z) => {
    const r = await z.json('/api/v1/pull', { model: BIG, stream: false });
    assert.equal(r.status, 200, JSON.stringify(r.data));
  });
  assert.ok(hub.bytesServed <= file.size - first + 8 * MiB,
    `refetched ${hub.bytesServed} after ${first} of ${file.size}`);
  assert.ok(hub.downloads >= 4, `used several connections (${hub.downloads}, first run ${first})`);
  const blob = path.join(repoDir(cache, BIG), 'blobs', file.sha256);
  assert.equal(crypto.createHash('sha256').update(fs.readFileSync(blob)).digest('hex'), file.sha256);
  assert.deepEqual(blobs(cache, BIG), [file.sha256]);  // sidecar and .incomplete gone
});

test('two concurrent pulls of one model download it once', async () => {
  hub.resetCounters();
  hub.throttle = 16 * MiB;
  try {
    await withZest({ ZEST_PULL_CONNECTIONS: '1' }, async (zest) => {
      const [a, b] = await Promise.all([
        zest.json('/api/v1/pull', { model: BIG, stream: false }),
        zest.json('/api/v1/pull', { model: `${BIG}:Q4_K_M`, stream: false }),
      ]);
      assert.equal(a.status, 200, JSON.stringify(a.data));
      assert.equal(b.status, 200, JSON.stringify(b.data));
      assert.equal(hub.bytesServed, 64 * MiB);
    });
  } finally {
    hub.throttle = 0;
  }
});

test('two nodes sharing one cache pull the same model at once: fetched once, both serve it', async () => {
  hub.resetCounters();
  hub.throttle = 16 * MiB;  // both are mid-download together
  const cache = tmpCache();
  const env = { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache, ZEST_PULL_CONNECTIONS: '1' };
  const nodes = await Promise.all([0, 1].map(() => startZest({ home: makeHome({}), env })));
  try {
    const pulls = await Promise.all(nodes.map((z) => z.json('/api/v1/pull', { model: BIG, stream: false })));
    for (const r of pulls) assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.equal(hub.bytesServed, 64 * MiB, 'the file crossed the network once');
    assert.equal(blobs(cache, BIG).length, 1);
    assert.ok(nodes.some((z) => /another process is downloading the same file/.test(z.logs())), 'one waited on the lock');
    // A model one node pulls is served by the other without a restart.
    const other = await nodes[1].json('/api/v1/pull', { model: TINY, stream: false });
    assert.equal(other.status, 200, JSON.stringify(other.data));
    const reply = await nodes[0].json('/v1/chat/completions', chatBody(other.data.model, { max_tokens: 4 }));
    assert.equal(reply.status, 200, JSON.stringify(reply.data));
  } finally {
    hub.throttle = 0;
    for (const z of nodes) { await z.stop(); z.cleanup(); }
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

function runCli(args, env) {
  return new Promise((resolve) => {
    execFile(zestBin, args, { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

test('zest pull shows progress lines and the pulled name; failures exit non-zero', async () => {
  await withZest({}, async (zest) => {
    const ok = await runCli(['pull', 'test-org/Flaky-GGUF'], { ZEST_HOST: zest.url });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /pulled test-org\/Flaky-GGUF:Q8_0/);
    assert.match(ok.stderr, /flaky-Q8_0\.gguf/);
    const bad = await runCli(['pull', 'test-org/NoSuchRepo'], { ZEST_HOST: zest.url });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /no .*test-org\/NoSuchRepo/);
  });
});

test('zest pull --with-draft also brings the draft the catalog names, and auto pairs the two', async () => {
  await withZest({}, async (zest) => {
    const r = await runCli(['pull', 'Qwen3-8B-GGUF', '--with-draft'], { ZEST_HOST: zest.url });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pulled .*Qwen3-8B/);
    assert.match(r.stdout, /pulled .*Qwen3-0\.6B/);
    assert.match(r.stdout, /Qwen3-0\.6B-GGUF drafts for Qwen3-8B-GGUF/);
    // No `draft` option anywhere: `auto` takes the catalog's usual draft.
    const load = await zest.json('/api/v1/load', { model: 'Qwen3-8B-GGUF' });
    assert.equal(load.status, 200, JSON.stringify(load.data));
    const inst = (await zest.instances()).find((i) => i.model === 'Qwen3-8B-GGUF');
    assert.deepEqual(inst.placement.speculative,
      { kind: 'draft', draft: 'Qwen3-0.6B-GGUF', draft_device: 'CPU' });
    assert.ok(inst.placement.predicted_bytes.CPU.draft > 0);

    const none = await runCli(['pull', 'test-org/Flaky-GGUF', '--with-draft'], { ZEST_HOST: zest.url });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /the catalog names no draft model for 'test-org\/Flaky-GGUF'/);
  });
});

test('Ctrl-C stops zest pull cleanly; the next pull resumes', async () => {
  const file = hub.file(BIG, 'big-Q4_K_M.gguf');
  hub.resetCounters();
  hub.throttle = 8 * MiB;
  try {
    await withZest({ ZEST_PULL_CONNECTIONS: '1' }, async (zest, cache) => {
      const child = spawn(zestBin, ['pull', BIG], { env: { ...process.env, ZEST_HOST: zest.url } });
      let stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      await waitFor(() => hub.bytesServed >= 8 * MiB, { timeout: 10000, what: 'download started' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      assert.equal(await exited, 130);
      assert.match(stderr, /again to resume/);
      const incomplete = path.join(repoDir(cache, BIG), 'blobs', `${file.sha256}.incomplete`);
      await waitFor(() => fs.existsSync(incomplete), { what: 'partial file kept' });
      // The cancelled download stops soon after; bytes the hub had sent into
      // the socket then never reached the file. What counts is what is on
      // disk once nothing moves any more.
      let last = -1;
      await waitFor(() => {
        const now = `${fs.statSync(incomplete).size}/${hub.bytesServed}`;
        const still = now === last;
        last = now;
        return still;
      }, { timeout: 10000, interval: 500, what: 'the cancelled download to stop' });
      const onDisk = fs.statSync(incomplete).size;
      assert.ok(onDisk >= 4 * MiB, `${onDisk} bytes kept`);
      hub.throttle = 0;
      const first = hub.bytesServed;
      const r = await zest.json('/api/v1/pull', { model: BIG, stream: false });
      assert.equal(r.status, 200);
      // Only what was missing is fetched again.
      const refetched = hub.bytesServed - first;
      assert.ok(refetched <= file.size - onDisk + MiB, `fetched ${refetched} for the ${file.size - onDisk} missing`);
    });
  } finally {
    hub.throttle = 0;
  }
});
