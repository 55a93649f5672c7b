// The engine's host-RAM prompt cache in the memory ledger, in a cache the
// conversations fill (prompt_cache.test.mjs has the default cache): 6
// conversations on 2 slots in a 40 MiB ceiling, which holds two of their
// states (round robin, each turn finds its own state gone), leave the engine's resident memory within bounds of zest's
// prediction on both sides (placement/prompt_cache.h: the ceiling and the
// state coming in). Real engine (the 'small' synthetic preset), real /proc
// measurement of the engine's process tree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HIGH, LOW, SLOTS, assertWithinBounds, trace } from '../lib/prompt_cache_trace.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';

const FULL_CACHE_MIB = 40;  // two states of its 6
const CONVERSATIONS = 6;

describe('the prompt cache in the ledger, filled', () => {
  let zest;
  before(async () => {
    const config = `[models.full]\nparallel = ${SLOTS}\nctx_size = 4096\ncache_ram = ${FULL_CACHE_MIB}\n`;
    zest = await startZest({ home: makeHome({ full: { preset: 'small' } }, { config }) });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test(`${CONVERSATIONS} conversations on ${SLOTS} slots in a cache of ${FULL_CACHE_MIB} MiB, which it fills: RSS/predicted ${LOW}..${HIGH}`, async (t) => {
    const warm = await trace(zest, 'full', 2, CONVERSATIONS);
    // Two of the four off the slots fit: most warm turns are read again.
    assert.ok(warm.filter((share) => share > 0.9).length < warm.length / 2, `cached shares ${warm.map((s) => s.toFixed(2))}`);
    const cpu = await assertWithinBounds(zest, t, 'full', 'fills');
    assert.ok(cpu.prompt_cache > FULL_CACHE_MIB * 2 ** 20, 'the full ceiling and the state coming in');
  });
});
