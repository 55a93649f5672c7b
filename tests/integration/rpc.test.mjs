// One model over two machines with ggml's RPC backend: `zest worker` in a
// network namespace of its own (a second machine, reached over a veth
// pair), a head zest whose memory limit is below the model's size. The
// head splits the model's layers between its CPU and the worker, answers
// a chat, shows the split on /api/v1/health; a killed worker gives a clear
// error (not a hang), and a worker that comes back is used again. Real
// ggml-rpc-server, real llama-server, real TCP. Namespaces need root; the
// address checks of `zest worker` run anywhere.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hasIp, isRoot, makeNamespace, removeNamespace } from '../lib/netns.mjs';
import { needs } from '../lib/requirements.mjs';
import { chatBody, descendants, makeHome, startZest, waitFor, zestBin } from '../lib/zest.mjs';

const tag = `${process.pid % 100000}`;
// An engine with RPC workers shares zest's network and so reaches its port:
// zest refuses workers without API keys (issue 52, 15), so the head has one.
const admin = 'admin-key-for-the-rpc-tests-0123456';

// startZest with the admin key set and sent on every request.
async function startKeyed(options) {
  const zest = await startZest({ ...options, env: { ...(options.env ?? {}), ZEST_API_KEY: admin } });
  const plain = zest.fetch.bind(zest);
  zest.fetch = (p, init = {}) => plain(p, { ...init, headers: { authorization: `Bearer ${admin}`, ...(init.headers ?? {}) } });
  return zest;
}
const PORT = 50052;

describe('zest worker: where it may listen', () => {
  const worker = (...args) => spawnSync(zestBin, ['worker', ...args], {
    env: { ...process.env, ZEST_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'zest-worker-')) },
    encoding: 'utf8', timeout: 10000,
  });

  test('a wildcard or public address is refused without --insecure, saying why', () => {
    for (const host of ['0.0.0.0', '8.8.8.8']) {
      const r = worker('--host', host, '--port', '1');
      assert.equal(r.status, 2, `${host}: ${r.stderr}`);
      assert.match(r.stderr, /refusing to listen on .*no authentication.*--insecure listens anyway/s, host);
    }
    // ggml-rpc-server binds IPv4 addresses only.
    for (const host of ['::', 'worker.example.com']) {
      const r = worker('--host', host, '--port', '1', '--insecure');
      assert.equal(r.status, 2, `${host}: ${r.stderr}`);
      assert.match(r.stderr, /listens on an IPv4 address only/, host);
    }
  });
});

// Starts `zest worker` inside the namespace; resolves once its port takes
// connections from the head's side.
async function startWorker(netns, home) {
  const proc = spawn(netns.prefix[0], [...netns.prefix.slice(1), zestBin, 'worker', '--host', netns.address,
    '--port', String(PORT)], { env: { ...process.env, ZEST_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.output = '';
  proc.stdout.on('data', (d) => { proc.output += d; });
  proc.stderr.on('data', (d) => { proc.output += d; });
  const connects = () => new Promise((resolve) => {
    const socket = net.connect({ host: netns.address, port: PORT }, () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
  await waitFor(connects, { timeout: 20000, interval: 100, what: `the worker on ${netns.address}:${PORT}` });
  return proc;
}

// Root is a privilege, not a tool: without it this skips. As root, a
// missing `ip` is a broken set-up (tests/lib/requirements.mjs).
const skip = !isRoot ? 'needs root (network namespaces)' : needs(hasIp, 'iproute2 (/usr/sbin/ip)');

describe('one model across a head and an RPC worker', { skip }, () => {
  let netns;
  let worker;
  let zest;
  let endpoint;
  const workerHome = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-worker-'));

  before(async () => {
    netns = makeNamespace(`zest-r${tag}`, `rh${tag}`, `rn${tag}`, `10.232.${tag % 250}`);
    endpoint = `${netns.address}:${PORT}`;
    worker = await startWorker(netns, workerHome);
    // 'small' (6 blocks, 35 MiB of weights) needs about 75 MiB on the CPU
    // alone with these contexts; 50 MiB holds some of its layers.
    const home = makeHome({ big: 'small' });
    fs.writeFileSync(path.join(home, 'config.toml'), `[placement]\nmemory_limit = "50M"\n[rpc]\nworkers = ["${endpoint}"]\n`);
    zest = await startKeyed({ home, args: ['--ctx-size', '1024', '--parallel', '1'] });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    worker?.kill('SIGKILL');
    if (netns) removeNamespace(netns);
    fs.rmSync(workerHome, { recursive: true, force: true });
  });

  const health = async () => (await zest.json('/api/v1/health')).data;

  test('the model is split between the head\'s CPU and the worker, answers, and health shows it', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('big'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.ok(r.data.choices[0].message.content.length > 0);
    const h = await health();
    const [instance] = h.instances;
    const device = `rpc:${endpoint}`;
    assert.deepEqual(instance.placement.devices, [device]);
    assert.ok(instance.placement.n_gpu_layers > 0 && instance.placement.n_gpu_layers < 7,
      `a split, not all on one side: ${instance.placement.explanation}`);
    assert.match(instance.placement.explanation, new RegExp(`\\d+ layers? of 7 on ${device}, the rest on the CPU`));
    const predicted = instance.placement.predicted_bytes;
    assert.ok(predicted.CPU.weights > 5 * 2 ** 20 && predicted[device].weights > 5 * 2 ** 20, JSON.stringify(predicted));
    assert.ok(predicted.CPU.total <= 50 * 2 ** 20, 'the head keeps within its limit');
    assert.equal(h.rpc_workers.length, 1);
    assert.equal(h.rpc_workers[0].endpoint, endpoint);
    assert.equal(h.rpc_workers[0].reachable, true);
    assert.ok(h.rpc_workers[0].total_bytes > 0);
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.match(metrics, new RegExp(`^zest_rpc_worker_up\\{endpoint="${endpoint}"\\} 1$`, 'm'));
    assert.match(metrics, new RegExp(`^zest_rpc_worker_memory_bytes\\{endpoint="${endpoint}"\\} [1-9]`, 'm'));
    const system = execFileSync(zestBin, ['system'], { env: { ...process.env, ZEST_HOST: zest.url, ZEST_API_KEY: admin }, encoding: 'utf8' });
    assert.match(system, new RegExp(`^Worker\\s+${endpoint} \\(rpc:${endpoint}\\): [\\d.]+ \\w+ free of`, 'm'));
    // The engine was told so: the worker by address, its device by the engine's name.
    const engine = descendants(zest.pid).find((p) => p.comm === 'llama-server');
    const argv = fs.readFileSync(`/proc/${engine.pid}/cmdline`, 'utf8').split('\0');
    assert.equal(argv[argv.indexOf('--rpc') + 1], endpoint);
    assert.equal(argv[argv.indexOf('--device') + 1], 'RPC0');
    assert.equal(argv[argv.indexOf('-ngl') + 1], String(instance.placement.n_gpu_layers));
  });

  test('a killed worker gives a clear error, not a hang', async () => {
    worker.kill('SIGKILL');  // its ggml-rpc-server goes with it (PR_SET_PDEATHSIG)
    await new Promise((resolve) => worker.once('exit', resolve));
    const started = Date.now();
    const r = await zest.json('/v1/chat/completions', chatBody('big'));
    assert.ok(Date.now() - started < 30000, 'answered in time');
    assert.equal(r.status, 507, JSON.stringify(r.data));
    assert.match(r.data.error.message, new RegExp(`RPC worker ${endpoint.replace(/\./g, '\\.')} is unreachable \\(cannot connect\\)`));
    assert.match(r.data.error.message, /does not fit in the memory left/);
    const [w] = (await health()).rpc_workers;
    assert.equal(w.reachable, false);
    assert.match(await (await zest.fetch('/metrics')).text(), /^zest_rpc_worker_up\{endpoint="[^"]+"\} 0$/m);
    const system = execFileSync(zestBin, ['system'], { env: { ...process.env, ZEST_HOST: zest.url, ZEST_API_KEY: admin }, encoding: 'utf8' });
    assert.match(system, /^Worker\s+RPC worker \S+ is unreachable \(cannot connect\)$/m);
    assert.equal((await health()).instances.length, 0, 'no engine left running on a lost worker');
  });

  test('a worker that comes back is used again', async () => {
    worker = await startWorker(netns, workerHome);
    const r = await zest.json('/v1/chat/completions', chatBody('big'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.deepEqual((await health()).instances[0].placement.devices, [`rpc:${endpoint}`]);
    assert.equal((await health()).rpc_workers[0].reachable, true);
  });

  // This machine first: a model that fits here once an idle one is evicted
  // is not sent to the worker (which would hold it without evicting).
  test('a model that fits here after an eviction is not put on the worker', async () => {
    const long = { preset: 'tiny', args: ['--context', '32768'] };
    const home = makeHome({ one: long, two: long });
    // With these contexts each takes ~34 MiB here: 62 MiB holds one, not
    // two, but beside it the ~25 MiB of an engine with every layer (and its
    // KV cache) on the worker.
    fs.writeFileSync(path.join(home, 'config.toml'), `[placement]\nmemory_limit = "62M"\n[rpc]\nworkers = ["${endpoint}"]\n`);
    await zest.stop();  // the worker serves one head at a time
    zest.cleanup();
    zest = await startKeyed({ home, args: ['--ctx-size', '16384', '--parallel', '1'] });
    for (const m of ['one', 'two']) {
      const r = await zest.json('/v1/chat/completions', chatBody(m));
      assert.equal(r.status, 200, JSON.stringify(r.data));
    }
    const [instance] = (await health()).instances;
    assert.equal(instance.model, 'two');
    assert.deepEqual(instance.placement.devices, ['CPU'], instance.placement.explanation);
    assert.match(zest.logs(), /evicting idle 'one' \(pid \d+\) to make room for 'two'/);
  });

  // Put on the worker by name, a model that fits here goes there whole
  // (zest planned without the workers, which it asks only for a model this
  // machine cannot hold, and refused the device as one the engine does not
  // see).
  test('a model whose device is the worker loads there whole', async () => {
    const device = `rpc:${endpoint}`;
    const home = makeHome({ w: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'),
      `[rpc]\nworkers = ["${endpoint}"]\n[models."w"]\ndevice = "${device}"\n`);
    await zest.stop();  // the worker serves one head at a time
    zest.cleanup();
    zest = await startKeyed({ home, args: ['--ctx-size', '1024', '--parallel', '1'] });
    const r = await zest.json('/v1/chat/completions', chatBody('w'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const [instance] = (await health()).instances;
    assert.deepEqual(instance.placement.devices, [device], instance.placement.explanation);
    assert.match(instance.placement.explanation, new RegExp(`all \\d+ layers on ${device}`));
  });

  // Issue 52, 15: without keys every route answers anyone on loopback, the
  // engine on zest's network included.
  test('without API keys, a model on RPC workers is refused, saying why', async () => {
    const device = `rpc:${endpoint}`;
    const home = makeHome({ w: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'),
      `[rpc]\nworkers = ["${endpoint}"]\n[models."w"]\ndevice = "${device}"\n`);
    await zest.stop();
    zest.cleanup();
    zest = await startZest({ home, args: ['--ctx-size', '1024', '--parallel', '1'] });
    const r = await zest.json('/v1/chat/completions', chatBody('w'));
    assert.equal(r.status, 409, JSON.stringify(r.data));
    assert.match(r.data.error.message, /RPC workers.*zest has no API keys/);
    assert.deepEqual((await zest.json('/api/v1/ps')).data.instances, []);
  });
});
