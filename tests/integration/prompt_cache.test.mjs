// The engine's host-RAM prompt cache (llama-server's --cache-ram) in the
// memory ledger: zest gives each engine a cache ceiling it has room for
// (four KV caches by default), and the ledger holds what the cache holds as
// conversations come (placement/prompt_cache.h: the states of every
// conversation but the newest, up to the ceiling, and the newest's, which
// the next request saves), not the ceiling. Two traces on 2 slots, of 3
// conversations (the cache far from full) and of 8 (most of it), each
// leave the engine's resident memory within bounds of zest's prediction on
// both sides: a prediction too high keeps out models that fit (reserving
// the ceiling, the first trace measured 0.52 of it), one too low lets the
// machine run out. Left to itself the engine grows its cache up to 8 GiB.
// The trace of 8 in a cache they fill is prompt_cache_full.test.mjs (a file
// of its own: on a loaded machine the three took longer than a file's
// 300 s). Real engine (the 'small' synthetic preset: 6 KiB of KV per
// token), real /proc measurement of the engine's process tree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import {
  CONVERSATIONS, HIGH, LOW, MiB, SLOTS, assertWithinBounds, instance, trace,
} from '../lib/prompt_cache_trace.mjs';
import { descendants, makeHome, startZest } from '../lib/zest.mjs';

describe('the prompt cache in the ledger', () => {
  let zest;
  before(async () => {
    const config = `[models.small]\nparallel = ${SLOTS}\nctx_size = 4096\n` +
      `[models.few]\nparallel = ${SLOTS}\nctx_size = 4096\n`;
    const home = makeHome({ small: { preset: 'small' }, few: { preset: 'small' } }, { config });
    zest = await startZest({ home });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test('the engine gets a cache ceiling it has room for; at load the ledger holds none of it', async () => {
    const load = await zest.json('/api/v1/load', { model: 'small' });
    assert.equal(load.status, 200, JSON.stringify(load.data));
    const p = (await instance(zest, 'small')).placement;
    const cpu = p.predicted_bytes.CPU;
    // Unset: four KV caches (whole MiB), since this machine has room.
    assert.equal(p.cache_ram, Math.floor(4 * cpu.kv_cache / 2 ** 20));
    assert.equal(cpu.prompt_cache, 0, 'nothing cached yet');
    assert.equal(cpu.total, cpu.weights + cpu.kv_cache + cpu.compute + cpu.overhead + cpu.prompt_cache + cpu.learned + cpu.draft);
    assert.match(p.explanation, /prompt cache of up to \d+ MiB/);
    // What the engine was told: its own command line.
    const engine = descendants(zest.pid).find((d) => d.comm.startsWith('llama-server'));
    assert.ok(engine, 'a llama-server runs');
    const argv = fs.readFileSync(`/proc/${engine.pid}/cmdline`, 'utf8').split('\0');
    assert.equal(argv[argv.indexOf('--cache-ram') + 1], String(p.cache_ram));
    // Its conversation states go back to the kernel when the cache drops
    // them (llama_server_adapter.cc), so its RSS is what the cache holds.
    const env = fs.readFileSync(`/proc/${engine.pid}/environ`, 'utf8').split('\0');
    assert.ok(env.includes('MALLOC_MMAP_THRESHOLD_=4194304'), env.join(' '));
  });

  test(`3 conversations on ${SLOTS} slots, far from filling the default cache: RSS/predicted ${LOW}..${HIGH}`, async (t) => {
    const warm = await trace(zest, 'few', 2, 3);
    assert.ok(warm.every((share) => share > 0.9), `cached shares ${warm.map((s) => s.toFixed(2))}`);
    await assertWithinBounds(zest, t, 'few', 'far from full');
  });

  test(`${CONVERSATIONS} conversations on ${SLOTS} slots in the default cache: every warm turn cached, RSS/predicted ${LOW}..${HIGH}`, async (t) => {
    const warm = await trace(zest, 'small', 2);
    // The default cache holds them: every later turn reads only its new
    // tokens (a cache as large as the KV cache held one conversation
    // beside the slots, and this round-robin order found none of them).
    assert.ok(warm.every((share) => share > 0.9), `cached shares ${warm.map((s) => s.toFixed(2))}`);
    const cpu = await assertWithinBounds(zest, t, 'small', 'fits');
    // What it holds is the conversations' states, not the ceiling.
    const ceiling = (await instance(zest, 'small')).placement.cache_ram * 2 ** 20;
    assert.ok(cpu.prompt_cache > 0 && cpu.prompt_cache < ceiling, `held ${MiB(cpu.prompt_cache)} of ${MiB(ceiling)} MiB`);
  });

  test('--cache-ram in extra_args is refused: cache_ram is the option', async () => {
    const r = await zest.json('/api/v1/load', { model: 'small', options: { extra_args: ['--cache-ram', '-1'] } });
    assert.equal(r.status, 400, JSON.stringify(r.data));
    assert.match(r.data.error.message, /use cache_ram/);
  });
});
