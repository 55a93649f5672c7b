// Placement and memory admission with the real engine: a memory budget
// (placement.memory_limit) that holds one tiny model but not two, so the
// idle one is evicted; a busy (streaming) one never is (the load waits for
// it to go idle); a model that can never fit is refused with 507 and the
// numbers. Per-model options from
// config.toml reach llama-server's command line. Predicted vs measured
// engine memory is reported (see bench/placement_accuracy.mjs for accuracy).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  chatBody, descendants, makeHome, openStream, startZest, waitFor, zestBin,
} from '../lib/zest.mjs';

// A tiny model is predicted at ~28 MiB (24 MiB of it the engine itself);
// 45 MiB holds one, not two. 'big' asks for a 32768-token context × 4
// slots: 32 MiB of KV cache more, which never fits.
//
// A test holds a model busy with a stream that must last until the test
// aborts it. llama-server ends a generation when the context is full (a
// tiny model's 2048 tokens take about a second), so the model that streams,
// 'b', shifts its context instead. Only 'b': with a quantized K cache (a's
// q8_0) llama-server b11669 crashes when it shifts.
const LIMIT = '45M';
const CONFIG = `[placement]
memory_limit = "${LIMIT}"
[models."a"]
kv_type = "q8_0"
flash_attention = true
[models."b"]
no_mmap = true
extra_args = ["--context-shift"]
[models."big"]
ctx_size = 32768
`;

const engineArgv = (zest, model) => {
  for (const p of descendants(zest.pid).filter((d) => d.comm === 'llama-server')) {
    const argv = fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
    if (argv[argv.indexOf('--alias') + 1] === model) return argv;
  }
  return null;
};
const loaded = async (zest) => (await zest.instances()).map((i) => i.model).sort();

describe('placement and memory admission', () => {
  let zest;
  before(async () => {
    // 'a' has 2 heads of 32 (a quantized KV cache needs whole 32-element blocks).
    const home = makeHome({ a: { preset: 'tiny', args: ['--heads', '2', '--kv-heads', '2'] }, b: 'tiny',
                            big: { preset: 'tiny', args: ['--context', '32768'] } });
    fs.writeFileSync(path.join(home, 'config.toml'), CONFIG);
    // 3 shared slots + the one reserved for high priority: the engine runs 4.
    zest = await startZest({ home, args: ['--parallel', '3'] });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a model is placed, with its plan, prediction and measured memory in ps', async (t) => {
    const r = await zest.json('/v1/chat/completions', chatBody('a'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const [a] = await zest.instances();
    assert.equal(a.model, 'a');
    assert.deepEqual(a.placement.devices, ['CPU']);
    assert.equal(a.placement.kv_type, 'q8_0');
    assert.equal(a.placement.ctx_size, 2048);  // default 4096, capped at the trained 2048
    assert.match(a.placement.explanation, /all layers on the CPU; context 2048 tokens × 4 slots/);
    assert.match(a.placement.explanation, /of 45 MiB free/);
    const predicted = a.placement.predicted_total_bytes;
    assert.ok(predicted > 20 * 2 ** 20 && predicted < 45 * 2 ** 20, `predicted ${predicted}`);
    assert.ok(a.measured_rss_bytes > 0);
    t.diagnostic(`a: predicted ${(predicted / 2 ** 20).toFixed(1)} MiB, ` +
                 `measured RSS ${(a.measured_rss_bytes / 2 ** 20).toFixed(1)} MiB`);
    assert.match(zest.logs(), /'a' memory: predicted [\d.]+ MiB on the CPU .* measured RSS/);
    // The same pair as Prometheus gauges (the prediction-error alert reads them).
    const metrics = await (await zest.fetch('/metrics')).text();
    const gauge = (name) => Number(new RegExp(`^${name}\\{model="a",instance_device="CPU",device="CPU"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    assert.ok(gauge('zest_memory_predicted_bytes') > 20 * 2 ** 20, metrics);
    assert.ok(gauge('zest_memory_actual_bytes') > 20 * 2 ** 20);
    // The plan's flags reached the engine (which accepted them and loaded).
    const argv = engineArgv(zest, 'a');
    for (const flag of [['--fit', 'off'], ['--device', 'none'], ['-ngl', '0'], ['-ctk', 'q8_0'],
                        ['-ctv', 'q8_0'], ['-fa', 'on']]) {
      assert.equal(argv[argv.indexOf(flag[0]) + 1], flag[1], argv.join(' '));
    }
    const health = (await zest.json('/api/v1/health')).data;
    assert.equal(health.instances[0].placement.explanation, a.placement.explanation);
  });

  test('zest ps -v explains the placement', () => {
    const out = execFileSync(zestBin, ['ps', '-v'], {
      env: { ...process.env, ZEST_HOST: zest.url }, encoding: 'utf8' });
    assert.match(out, /MODEL\s+PID\s+STATE.*DEVICE\s+CONTEXT\s+PREDICTED\s+RSS/);
    assert.match(out, /\ba\s+\d+\s+ready.*CPU\s+2048/);
    assert.match(out, /all layers on the CPU; context 2048 tokens × 4 slots/);
  });

  test('zest list says whether this machine can run each model (FIT), from the same plan', async () => {
    const models = (await zest.json('/v1/models')).data.data;
    const fit = (id) => models.find((m) => m.id === id).fit;
    assert.equal(fit('a').verdict, 'yes', JSON.stringify(fit('a')));  // no GPU here: in RAM is "yes"
    assert.equal(fit('a').available_bytes, 45 * 2 ** 20);
    assert.ok(fit('a').needed_bytes > 20 * 2 ** 20 && fit('a').needed_bytes < 45 * 2 ** 20);
    const big = fit('big');
    assert.equal(big.verdict, 'no', JSON.stringify(big));
    assert.ok(big.needed_bytes > big.available_bytes, JSON.stringify(big));
    assert.match(big.reason, /does not fit/);
    // Catalog entries not downloaded: estimated from their size (GBs, not 45 MiB).
    const all = (await zest.json('/api/v1/models?all=true')).data.data;
    const catalog = all.filter((m) => m.source === 'catalog' && !m.downloaded);
    assert.ok(catalog.length > 0);
    for (const m of catalog) assert.equal(m.fit.verdict, 'no', `${m.id}: ${JSON.stringify(m.fit)}`);
    const env = { ...process.env, ZEST_HOST: zest.url };
    const out = execFileSync(zestBin, ['list'], { env, encoding: 'utf8' });
    assert.match(out, /NAME\s+ARCH.*LOADED\s+FIT\s+PATH/);
    assert.match(out, /^a\s.*\syes\s/m);
    assert.match(out, /^big\s.*\sno \(needs [\d.]+ MB, 45\.0 MB free\)/m);
    const json = JSON.parse(execFileSync(zestBin, ['list', '--json'], { env, encoding: 'utf8' }));
    assert.deepEqual(json.find((m) => m.id === 'big').fit, big);
  });

  test('loading a second model evicts the idle first one', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('b'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.deepEqual(await loaded(zest), ['b']);
    assert.match(zest.logs(), /evicting idle 'a' \(pid \d+\) to make room for 'b'/);
    assert.equal(engineArgv(zest, 'a'), null);
    const argv = engineArgv(zest, 'b');
    assert.equal(argv[argv.indexOf('--load-mode') + 1], 'none');  // no_mmap
  });

  test('a model that is streaming is never evicted: the load waits until it is idle', async () => {
    const s = await openStream(zest, chatBody('b', { max_tokens: 100000, ignore_eos: true }));
    assert.equal(s.status, 200);
    let settled = null;
    const pending = zest.json('/v1/chat/completions', chatBody('a')).then((r) => { settled = r; return r; });
    // zest's own word that the load waits (it does until 'b' goes idle).
    await waitFor(() => /'a' waits for memory held by 'b' \(in use\)/.test(zest.logs()), { what: 'the wait' });
    assert.equal(settled, null, 'a waits while b streams');
    assert.doesNotMatch(zest.logs(), /draining 'b'/, 'a normal-priority load does not force a swap');
    assert.deepEqual(await loaded(zest), ['b']);
    assert.equal((await zest.instances())[0].in_flight, 1);
    s.abort();  // b goes idle: now it can be evicted for a
    const r = await pending;
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.deepEqual(await loaded(zest), ['a']);
    assert.match(zest.logs(), /evicting idle 'b' \(pid \d+\) to make room for 'a'/);
  });

  test('a high-priority load drains the busy model: its new requests wait, then it swaps back', async () => {
    const s = await openStream(zest, chatBody('b', { max_tokens: 100000, ignore_eos: true }));  // evicts idle 'a'
    assert.equal(s.status, 200);
    assert.deepEqual(await loaded(zest), ['b']);
    // Only an urgent (high-priority) load drains; a normal one just waits (test above).
    const a = zest.json('/v1/chat/completions', chatBody('a'), { headers: { 'X-Priority': 'high' } });
    await waitFor(() => /draining 'b' to make room for 'a'/.test(zest.logs()), { what: 'the drain' });
    assert.equal((await zest.instances())[0].state, 'draining');
    // A new request for 'b' is not given the draining engine.
    let settled = null;
    const again = zest.json('/v1/chat/completions', chatBody('b')).then((r) => { settled = r; return r; });
    await waitFor(() => /a request for 'b' waits: its engine is draining/.test(zest.logs()), { what: "'b' waiting" });
    assert.equal(settled, null, "'b' waits while it drains");
    assert.equal((await zest.instances())[0].in_flight, 1, 'the draining engine took no new request');
    s.abort();  // 'b' goes idle: evicted for 'a'; then 'b' comes back for the waiting request
    const [ra, rb] = [await a, await again];
    assert.equal(ra.status, 200, JSON.stringify(ra.data));
    assert.equal(rb.status, 200, JSON.stringify(rb.data));
    assert.deepEqual(await loaded(zest), ['b']);
  });

  test('a model that can never fit gets 507 with needed and available memory; nothing is evicted for it', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('big'));
    assert.equal(r.status, 507, JSON.stringify(r.data));
    assert.match(r.data.error.message,
      /model 'big' does not fit in the memory left: it needs [\d.]+ MiB \(weights .*, KV cache 32 MiB, compute .*\) for a context of 32768 tokens × 4 slots; available: CPU 45 MiB free of 45 MiB/);
    assert.deepEqual(await loaded(zest), ['b']);
  });
});

// CPU thread budget (placement/cpu_threads.h): ggml's threads spin at
// barriers, so CPU engines computing at once must not ask for more threads
// than there are cores. The first takes every physical core, the next shares.
describe('CPU thread budget', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({ x: 'tiny', y: 'tiny' }) }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  const threadsOf = (model) => {
    const argv = engineArgv(zest, model);
    return argv && argv.includes('-t') ? Number(argv[argv.indexOf('-t') + 1]) : null;
  };

  test('the first CPU engine gets every core, the second an equal share; health says so', async () => {
    const cores = (await zest.json('/api/v1/system-info')).data.cpu.cores;
    assert.ok(cores >= 1);
    for (const m of ['x', 'y']) assert.equal((await zest.json('/api/v1/load', { model: m })).status, 200);
    assert.equal(threadsOf('x'), cores);
    assert.equal(threadsOf('y'), Math.max(1, Math.floor(cores / 2)));
    const byModel = Object.fromEntries((await zest.instances()).map((i) => [i.model, i.placement]));
    assert.equal(byModel.x.cpu_threads, cores);
    assert.equal(byModel.y.cpu_threads, threadsOf('y'));
    assert.match(byModel.y.explanation, /\d+ of \d+ CPU cores \(1 other CPU engine\(s\)\)/);
  });

  test('a CPU engine started after the others left gets every core again', async () => {
    for (const m of ['x', 'y']) assert.equal((await zest.json('/api/v1/unload', { model: m })).status, 200);
    assert.equal((await zest.json('/api/v1/load', { model: 'y' })).status, 200);
    const cores = (await zest.json('/api/v1/system-info')).data.cpu.cores;
    assert.equal(threadsOf('y'), cores);
  });
});

// Memory for two tiny models, three of them. A high-priority load for the
// third drains one busy model; when the other goes idle first, the load
// takes its room, and the drained one must serve again (it used to stay
// draining, its new requests waiting forever). Streams last until aborted
// (context shift, as above).
describe('a drained model whose room was not needed', () => {
  let zest;
  before(async () => {
    const home = makeHome({ p: 'tiny', q: 'tiny', r: 'tiny' });
    const endless = ['p', 'q', 'r'].map((m) => `[models."${m}"]\nextra_args = ["--context-shift"]\n`).join('');
    fs.writeFileSync(path.join(home, 'config.toml'), `[placement]\nmemory_limit = "70M"\n${endless}`);
    zest = await startZest({ home, args: ['--parallel', '2'] });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('serves again once the load that drained it found room elsewhere', async () => {
    const long = (m) => openStream(zest, chatBody(m, { max_tokens: 100000, ignore_eos: true }));
    const streams = { p: await long('p'), q: await long('q') };
    assert.deepEqual(await loaded(zest), ['p', 'q']);
    const r = zest.json('/v1/chat/completions', chatBody('r'), { headers: { 'X-Priority': 'high' } });
    await waitFor(() => /draining '[pq]' to make room for 'r'/.test(zest.logs()), { what: 'the drain' });
    const drained = /draining '([pq])' to make room for 'r'/.exec(zest.logs())[1];
    const other = drained === 'p' ? 'q' : 'p';
    streams[other].abort();  // the other one goes idle first: 'r' takes its room
    assert.equal((await r).status, 200);
    assert.deepEqual(await loaded(zest), [drained, 'r'].sort());
    const state = (await zest.instances()).find((i) => i.model === drained).state;
    assert.equal(state, 'ready');
    // Its stream still runs; a new request is served beside it, not held.
    const held = new Promise((resolve) => setTimeout(() => resolve({ status: 'held for 20 s' }), 20000));
    const again = await Promise.race([zest.json('/v1/chat/completions', chatBody(drained)), held]);
    assert.equal(again.status, 200, JSON.stringify(again.data));
    streams[drained].abort();
  });
});
