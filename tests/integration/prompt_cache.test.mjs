// The engine's host-RAM prompt cache (llama-server's --cache-ram) in the
// memory ledger: zest gives each engine a cache ceiling it has room for
// (four KV caches by default), and the ledger holds what the cache holds as
// conversations come (placement/prompt_cache.h: the states of every
// conversation but the newest, up to the ceiling, and the newest's, which
// the next request saves), not the ceiling. Three traces on 2 slots, of 3
// conversations (the cache far from full), of 8 (most of it) and of 8 in a
// cache they fill, each leave the engine's resident memory within bounds of
// zest's prediction on both sides: a prediction too high keeps out models
// that fit (reserving the ceiling, the first trace measured 0.52 of it),
// one too low lets the machine run out. Left to itself the engine grows its cache up to 8 GiB.
// Real engine (the 'small' synthetic preset: 6 KiB of KV per token), real
// /proc measurement of the engine's process tree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import { opening } from '../lib/prompts.mjs';
import { descendants, makeHome, startZest } from '../lib/zest.mjs';

const CONVERSATIONS = 8;
const SLOTS = 2;
const WORDS = 750;  // ~2,900 tokens a conversation: ~17 MiB of state each
// The bounds on engine RSS / predicted: 0.8 to 1.1.
const LOW = 0.8;
const HIGH = 1.1;
const FULL_CACHE_MIB = 40;  // the filling trace's ceiling: two states of its 8

const MiB = (bytes) => (bytes / 2 ** 20).toFixed(1);

describe('the prompt cache in the ledger', () => {
  let zest;
  before(async () => {
    const config = `[models.small]\nparallel = ${SLOTS}\nctx_size = 4096\n` +
      `[models.few]\nparallel = ${SLOTS}\nctx_size = 4096\n` +
      `[models.full]\nparallel = ${SLOTS}\nctx_size = 4096\ncache_ram = ${FULL_CACHE_MIB}\n`;
    const home = makeHome({ small: { preset: 'small' }, few: { preset: 'small' }, full: { preset: 'small' } }, { config });
    zest = await startZest({ home });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  const instance = async (model) => (await zest.json('/api/v1/ps')).data.instances.find((i) => i.model === model);

  // Turns of 8 conversations, round robin (each turn of each one evicts
  // another from a slot); each second turn's cached share.
  async function trace(model, turns, conversations = CONVERSATIONS) {
    const history = [];
    for (let n = 0; n < conversations; n++) history.push([{ role: 'system', content: opening(n, WORDS) }]);
    const warm = [];
    for (let turn = 0; turn < turns; turn++) {
      for (let n = 0; n < conversations; n++) {
        history[n].push({ role: 'user', content: `turn ${turn} of conversation ${n}` });
        const r = await zest.json('/v1/chat/completions', { model, messages: history[n], max_tokens: 4, temperature: 0 });
        assert.equal(r.status, 200, JSON.stringify(r.data));
        history[n].push({ role: 'assistant', content: r.data.choices[0].message.content ?? '' });
        if (turn > 0) warm.push(r.data.usage.prompt_tokens_details.cached_tokens / r.data.usage.prompt_tokens);
      }
    }
    return warm;
  }

  // The engine's RSS over the ledger's prediction for it, within bounds.
  async function assertWithinBounds(t, model, what) {
    const i = await instance(model);
    const cpu = i.placement.predicted_bytes.CPU;
    const predicted = cpu.total;
    const measured = i.measured_rss_bytes;
    assert.ok(measured > 0, 'the engine is measured');
    const ratio = measured / predicted;
    t.diagnostic(`${what}: engine RSS ${MiB(measured)} MiB, predicted ${MiB(predicted)} MiB ` +
      `(weights ${MiB(cpu.weights)}, KV ${MiB(cpu.kv_cache)}, compute ${MiB(cpu.compute)}, engine ${MiB(cpu.overhead)}, ` +
      `learned ${MiB(cpu.learned)}, prompt cache held ${MiB(cpu.prompt_cache)} of ${i.placement.cache_ram} MiB), ` +
      `RSS/predicted ${ratio.toFixed(2)}`);
    assert.ok(ratio >= LOW && ratio <= HIGH,
      `${what}: RSS/predicted ${ratio.toFixed(2)} (${MiB(measured)} / ${MiB(predicted)} MiB) not within ${LOW}..${HIGH}`);
    return cpu;
  }

  test('the engine gets a cache ceiling it has room for; at load the ledger holds none of it', async () => {
    const load = await zest.json('/api/v1/load', { model: 'small' });
    assert.equal(load.status, 200, JSON.stringify(load.data));
    const p = (await instance('small')).placement;
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
    const warm = await trace('few', 2, 3);
    assert.ok(warm.every((share) => share > 0.9), `cached shares ${warm.map((s) => s.toFixed(2))}`);
    await assertWithinBounds(t, 'few', 'far from full');
  });

  test(`${CONVERSATIONS} conversations on ${SLOTS} slots in the default cache: every warm turn cached, RSS/predicted ${LOW}..${HIGH}`, async (t) => {
    const warm = await trace('small', 2);
    // The default cache holds them: every later turn reads only its new
    // tokens (a cache as large as the KV cache held one conversation
    // beside the slots, and this round-robin order found none of them).
    assert.ok(warm.every((share) => share > 0.9), `cached shares ${warm.map((s) => s.toFixed(2))}`);
    const cpu = await assertWithinBounds(t, 'small', 'fits');
    // What it holds is the conversations' states, not the ceiling.
    const ceiling = (await instance('small')).placement.cache_ram * 2 ** 20;
    assert.ok(cpu.prompt_cache > 0 && cpu.prompt_cache < ceiling, `held ${MiB(cpu.prompt_cache)} of ${MiB(ceiling)} MiB`);
  });

  test(`the same trace in a cache of ${FULL_CACHE_MIB} MiB, which it fills: RSS/predicted ${LOW}..${HIGH}`, async (t) => {
    const warm = await trace('full', 2);
    // Two of the six off the slots fit: most warm turns are read again.
    assert.ok(warm.filter((share) => share > 0.9).length < warm.length / 2, `cached shares ${warm.map((s) => s.toFixed(2))}`);
    const cpu = await assertWithinBounds(t, 'full', 'fills');
    assert.ok(cpu.prompt_cache > FULL_CACHE_MIB * 2 ** 20, 'the full ceiling and the state coming in');
  });

  test('--cache-ram in extra_args is refused: cache_ram is the option', async () => {
    const r = await zest.json('/api/v1/load', { model: 'small', options: { extra_args: ['--cache-ram', '-1'] } });
    assert.equal(r.status, 400, JSON.stringify(r.data));
    assert.match(r.data.error.message, /use cache_ram/);
  });
});
