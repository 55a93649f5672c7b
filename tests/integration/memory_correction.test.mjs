// Learned memory correction: after each load zest compares its CPU
// prediction with the engine's measured RSS and keeps, per model file, the
// smoothed ratio in ZEST_HOME/memory_corrections.json; the next placement
// of that model scales its CPU prediction by it (never down). Real engine,
// real /proc measurement; the health view shows what was applied.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest, waitFor, zestBin } from '../lib/zest.mjs';

const cpuOf = (instance) => instance.placement.predicted_bytes.CPU;
const health = async (zest, model) =>
  (await zest.json('/api/v1/health')).data.instances.find((i) => i.model === model);
const load = async (zest, model) => {
  const r = await zest.json('/api/v1/load', { model });
  assert.equal(r.status, 200, JSON.stringify(r.data));
};
const unload = async (zest, model) => {
  const r = await zest.json('/api/v1/unload', { model });
  assert.equal(r.status, 200, JSON.stringify(r.data));
  await waitFor(async () => (await health(zest, model)) === undefined, { what: 'unloaded' });
};
// What the policy adds for a factor: the ledger's CPU total without the
// prompt cache (empty at a load, so not what was measured) × (factor - 1),
// truncated (±1 for the float rounding of two languages).
const assertLearnedBytes = (cpu, ledger, factor) => {
  const expected = Math.floor((ledger - cpu.prompt_cache) * (factor - 1));
  assert.ok(Math.abs(cpu.learned - expected) <= 1, `learned ${cpu.learned}, expected ${expected}`);
  assert.equal(cpu.total, ledger + cpu.learned);
};

describe('learned memory correction', () => {
  let zest;
  let home;
  let store;
  before(async () => {
    home = makeHome({ m: 'tiny' });
    store = path.join(home, 'memory_corrections.json');
    zest = await startZest({ home });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  let ledger;  // the ledger's own CPU prediction for 'm' (same options every load)
  let first;   // the ratio the first load measured

  test('the first load predicts from the ledger alone, then learns measured/predicted', async () => {
    await load(zest, 'm');
    const i = await health(zest, 'm');
    assert.equal(i.memory_correction, null);
    assert.equal(cpuOf(i).learned, 0);
    ledger = cpuOf(i).total;
    // Learned off the pool's strand, just after the load.
    const learnedLine =
      /'m' memory correction \(cpu_only\): measured\/predicted ([\d.]+) this load, learned ([\d.]+) from 1 load/;
    await waitFor(() => learnedLine.test(zest.logs()), { what: 'the first load learned' });
    const logged = learnedLine.exec(zest.logs());
    const saved = JSON.parse(fs.readFileSync(store, 'utf8'));
    assert.equal((fs.statSync(store).mode & 0o777), 0o600);
    assert.equal(saved.models.m.cpu_only.loads, 1);
    assert.equal(saved.models.m.with_gpus, undefined);  // learned only for the kind of layout it had
    first = saved.models.m.cpu_only.ratio;
    assert.ok(first >= 0.5 && first <= 2.0, `clamped: ${first}`);
    assert.ok(Math.abs(first - Math.min(2, Math.max(0.5, Number(logged[1])))) < 0.001);
    assert.match(saved.models.m.file, /m\.gguf\|\d+\|\d+$/);  // path|size|mtime
  });

  test('the next load of the model applies what the first one learned', async () => {
    await unload(zest, 'm');
    await load(zest, 'm');
    const i = await health(zest, 'm');
    assert.equal(i.memory_correction.scope, 'cpu_only');
    assert.equal(i.memory_correction.loads, 1);
    assert.equal(i.memory_correction.ratio, first);
    assert.equal(i.memory_correction.applied_factor, Math.max(1, first));
    assertLearnedBytes(cpuOf(i), ledger, Math.max(1, first));
    // The second load is learned from too, against the ledger's figure.
    await waitFor(() => JSON.parse(fs.readFileSync(store, 'utf8')).models.m.cpu_only.loads === 2,
                  { what: 'second load learned' });
  });

  test('what was learned survives a restart; a larger ratio raises the prediction', async () => {
    await zest.stop();
    // As if earlier loads had measured half as much again as predicted.
    const saved = JSON.parse(fs.readFileSync(store, 'utf8'));
    saved.models.m.cpu_only.ratio = 1.5;
    fs.writeFileSync(store, JSON.stringify(saved));
    zest = await startZest({ home });
    await load(zest, 'm');
    const i = await health(zest, 'm');
    assert.deepEqual(i.memory_correction, { scope: 'cpu_only', ratio: 1.5, loads: 2, applied_factor: 1.5 });
    assertLearnedBytes(cpuOf(i), ledger, 1.5);
    assert.match(i.placement.explanation, /learned from past loads/);
    const ps = execFileSync(zestBin, ['ps', '-v'], { env: { ...process.env, ZEST_HOST: zest.url },
                                                    encoding: 'utf8' });
    assert.match(ps, /memory correction \(cpu_only\): measured\/predicted 1\.50 over 2 load\(s\), CPU prediction x1\.50/);
  });

  test('a different file under the same name starts afresh', async () => {
    await unload(zest, 'm');
    // Same name, another file (re-pulled): its size and mtime differ.
    const file = path.join(home, 'models', 'm.gguf');
    fs.appendFileSync(file, Buffer.alloc(4096));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    await zest.stop();  // the registry reads the file's header again at start
    zest = await startZest({ home });
    await load(zest, 'm');
    assert.equal((await health(zest, 'm')).memory_correction, null);
  });
});
