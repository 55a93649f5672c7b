// Per-load engine options (POST /api/v1/load {"options"}, `zest load
// --ctx-size ...`): the same names and checks as [models."name"] in
// config.toml, laid over the model's table; they reach llama-server's
// command line, show in ps/health, reload an idle engine whose options
// differ (never a busy one: 409), change nothing when equal; and each
// model's admission gate has its engine's slots (per-model `parallel`, or a
// load's), not the server-wide count.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  chatBody, descendants, makeHome, openStream, startZest, waitFor, waitForQueued, zestBin,
} from '../lib/zest.mjs';

const CONFIG = `[models."m"]
kv_type = "q8_0"
[models."two"]
parallel = 2
# Its stream must outlast the test's wait, not end when the context is full.
extra_args = ["--context-shift"]
`;

const engineArgv = (zest, model) => {
  for (const p of descendants(zest.pid).filter((d) => d.comm === 'llama-server')) {
    const argv = fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
    if (argv[argv.indexOf('--alias') + 1] === model) return argv;
  }
  return null;
};
const flag = (argv, name) => argv[argv.indexOf(name) + 1];
const instance = async (zest, model) => (await zest.instances()).find((i) => i.model === model);
// zest_slots_capacity{model=...}: the gate's slots, shared and reserved.
const capacity = async (zest, model) => {
  const text = await (await zest.fetch('/metrics')).text();
  return Number(new RegExp(`^zest_slots_capacity\\{model="${model}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
};

describe('per-load engine options and per-model slots', () => {
  let zest;
  before(async () => {
    // Heads of 32: a quantized KV cache needs whole 32-element blocks.
    const tiny = { preset: 'tiny', args: ['--heads', '2', '--kv-heads', '2'] };
    const home = makeHome({ m: tiny, two: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'), CONFIG);
    zest = await startZest({ home, args: ['--parallel', '3'] });  // + 1 reserved = 4 sequences
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a load with options starts the engine with them, over the model\'s table', async () => {
    const r = await zest.json('/api/v1/load', {
      model: 'm', options: { ctx_size: 1024, parallel: 2, no_mmap: true, batch: 256, ubatch: 128 } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.deepEqual(r.data.options,
                     { ctx_size: 1024, parallel: 2, no_mmap: true, batch: 256, ubatch: 128, kv_type: 'q8_0' });
    const argv = engineArgv(zest, 'm');
    assert.equal(flag(argv, '-c'), String(1024 * 2), argv.join(' '));
    assert.equal(flag(argv, '--parallel'), '2');
    assert.equal(flag(argv, '--load-mode'), 'none');
    assert.equal(flag(argv, '-b'), '256');
    assert.equal(flag(argv, '-ub'), '128');
    assert.equal(flag(argv, '-ctk'), 'q8_0');  // from config.toml, kept under the request's
    const m = await instance(zest, 'm');
    assert.equal(m.placement.ctx_size, 1024);
    assert.equal(m.options.ctx_size, 1024);
    const health = (await zest.json('/api/v1/health')).data;
    assert.deepEqual(health.instances.find((i) => i.model === 'm').options, r.data.options);
  });

  test('the same options again change nothing; others reload the idle engine', async () => {
    const before = await instance(zest, 'm');
    const same = await zest.json('/api/v1/load', {
      model: 'm', options: { ctx_size: 1024, parallel: 2, no_mmap: true, batch: 256, ubatch: 128 } });
    assert.equal(same.status, 200, JSON.stringify(same.data));
    assert.equal(same.data.pid, before.pid);
    const other = await zest.json('/api/v1/load', { model: 'm', options: { ctx_size: 512 } });
    assert.equal(other.status, 200, JSON.stringify(other.data));
    assert.notEqual(other.data.pid, before.pid);
    assert.deepEqual(other.data.options, { ctx_size: 512, kv_type: 'q8_0' });
    assert.equal(flag(engineArgv(zest, 'm'), '-c'), String(512 * 4));
    assert.match(zest.logs(), /reloading 'm' with new options/);
    // A plain load (no options) keeps whatever is loaded.
    const plain = await zest.json('/api/v1/load', { model: 'm' });
    assert.equal(plain.data.pid, other.data.pid);
  });

  test('the gate of a model follows its engine\'s parallel (a load\'s options, per-model config)', async () => {
    await zest.json('/api/v1/load', { model: 'm', options: { parallel: 2 } });
    assert.equal(flag(engineArgv(zest, 'm'), '--parallel'), '2');
    assert.equal((await zest.json('/v1/chat/completions', chatBody('m'))).status, 200);
    // 2 sequences: 1 shared + the 1 reserved for high priority (not 3 + 1).
    assert.equal(await capacity(zest, 'm'), 2);
    // Per-model `parallel = 2` in config.toml, never loaded explicitly.
    assert.equal((await zest.json('/v1/chat/completions', chatBody('two'))).status, 200);
    assert.equal(flag(engineArgv(zest, 'two'), '--parallel'), '2');
    assert.equal(await capacity(zest, 'two'), 2);
    // With one shared slot, a second normal request waits for the first.
    const s = await openStream(zest, chatBody('two', { max_tokens: 100000 }));
    let settled = null;
    const second = zest.json('/v1/chat/completions', chatBody('two')).then((r) => { settled = r; return r; });
    await waitForQueued(zest, 'two');  // the second request queues behind the one shared slot
    assert.equal(settled, null);
    assert.equal((await instance(zest, 'two')).in_flight, 1);
    s.abort();
    assert.equal((await second).status, 200);
  });

  test('K and V cache types apart: the specific one wins over kv_type', async () => {
    const r = await zest.json('/api/v1/load', { model: 'm', options: { cache_type_v: 'q4_0' } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.deepEqual(r.data.options, { cache_type_v: 'q4_0', kv_type: 'q8_0' });
    const argv = engineArgv(zest, 'm');
    assert.equal(flag(argv, '-ctk'), 'q8_0', argv.join(' '));  // kv_type from config.toml
    assert.equal(flag(argv, '-ctv'), 'q4_0');
    const m = await instance(zest, 'm');
    assert.equal(m.placement.cache_type_k, 'q8_0');
    assert.equal(m.placement.cache_type_v, 'q4_0');
    assert.equal(m.placement.kv_type, undefined);  // the shorthand only when both agree
    assert.match(m.placement.explanation, /KV cache K q8_0, V q4_0/);
    // The engine really runs with them: it answers.
    assert.equal((await zest.json('/v1/chat/completions', chatBody('m'))).status, 200);
  });

  test('other options for a busy model: 409, the engine keeps running', async () => {
    const loaded = await instance(zest, 'm');
    const s = await openStream(zest, chatBody('m', { max_tokens: 100000 }));
    assert.equal(s.status, 200);
    const r = await zest.json('/api/v1/load', { model: 'm', options: { ctx_size: 256 } });
    assert.equal(r.status, 409, JSON.stringify(r.data));
    assert.equal(r.data.error.code, 'conflict');
    assert.match(r.data.error.message, /'m' is loaded with other options and busy \(1 request\(s\) in flight\)/);
    s.abort();
    assert.equal((await instance(zest, 'm')).pid, loaded.pid);
  });

  test('unknown or invalid options: 400 naming the option', async () => {
    const cases = [
      [{ gpu_layer: 3 }, 'options.gpu_layer', /unknown option 'gpu_layer'/],
      [{ ctx_size: 'big' }, 'options.ctx_size', /expected a context length/],
      [{ kv_type: 'q5_1' }, 'options.kv_type', /expected f16, q8_0 or q4_0/],
      [{ parallel: 0 }, 'options.parallel', /expected 1 to 256/],
      [{ no_mmap: 1 }, 'options.no_mmap', /expected true or false/],
      [{ cache_type_k: 'q4_1' }, 'options.cache_type_k', /expected f16, q8_0 or q4_0/],
      [{ tensor_split: [1, -1] }, 'options.tensor_split', /expected an array of non-negative numbers/],
      [{ tensor_split: [0, 0] }, 'options.tensor_split', /not all zero/],
      [{ tensor_split: ['1'] }, 'options.tensor_split', /expected an array of non-negative numbers/],
      [[], 'options', /must be an object/],
    ];
    for (const [options, param, message] of cases) {
      const r = await zest.json('/api/v1/load', { model: 'm', options });
      assert.equal(r.status, 400, JSON.stringify(r.data));
      assert.equal(r.data.error.param, param);
      assert.match(r.data.error.message, message);
    }
    // Checked by placement against the model and the devices.
    const device = await zest.json('/api/v1/load', { model: 'two', options: { device: 'Vulkan7' } });
    assert.equal(device.status, 400, JSON.stringify(device.data));
    assert.equal(device.data.error.param, 'options');
    assert.match(device.data.error.message, /device 'Vulkan7' is not one the engine sees/);
    const split = await zest.json('/api/v1/load',
                                  { model: 'two', options: { device: 'cpu', tensor_split: [1, 2.5] } });
    assert.equal(split.status, 400, JSON.stringify(split.data));
    assert.match(split.data.error.message,
                 /tensor_split has 2 weights but 'two' is placed on no GPU \(device = cpu\)/);
    const fa = await zest.json('/api/v1/load',
                               { model: 'm', options: { cache_type_v: 'q8_0', flash_attention: false } });
    assert.equal(fa.status, 400, JSON.stringify(fa.data));
    assert.match(fa.data.error.message, /cache_type_v q8_0 for 'm' needs flash attention/);
  });

  test('zest load takes the options as flags; zest ps -v shows them', () => {
    const env = { ...process.env, ZEST_HOST: zest.url };
    const out = execFileSync(zestBin, ['load', 'two', '--ctx-size', '768', '--gpu-layers', '0',
                                       '--device', 'cpu', '--no-mmap', '--flash-attention', 'off'],
                             { env, encoding: 'utf8' });
    assert.match(out, /loaded two in/);
    const argv = engineArgv(zest, 'two');
    assert.equal(flag(argv, '-c'), String(768 * 2));  // parallel = 2 from config.toml
    assert.equal(flag(argv, '-fa'), 'off');
    assert.equal(flag(argv, '--load-mode'), 'none');
    const ps = execFileSync(zestBin, ['ps', '-v'], { env, encoding: 'utf8' });
    assert.match(ps, /options: ctx_size=768 device=cpu extra_args=\["--context-shift"\] flash_attention=false n_gpu_layers=0 no_mmap=true parallel=2/);
    // The cache types and the split as flags; the split reaches placement,
    // which refuses it for a model on the CPU.
    const refused = (() => {
      try {
        execFileSync(zestBin, ['load', 'm', '--device', 'cpu', '--cache-type-v', 'q4_0',
                               '--tensor-split', '1,2'], { env, encoding: 'utf8', stdio: 'pipe' });
        return null;
      } catch (e) { return e; }
    })();
    assert.ok(refused, 'zest load with a split on the CPU fails');
    assert.match(refused.stderr, /tensor_split has 2 weights but 'm' is placed on no GPU/);
    execFileSync(zestBin, ['load', 'm', '--device', 'cpu', '--cache-type-k', 'f16', '--cache-type-v', 'q4_0'],
                 { env, encoding: 'utf8' });
    const argv2 = engineArgv(zest, 'm');
    assert.equal(flag(argv2, '-ctk'), 'f16');  // over the kv_type of config.toml
    assert.equal(flag(argv2, '-ctv'), 'q4_0');
  });
});
