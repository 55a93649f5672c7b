// The engine's host-RAM prompt cache (llama-server's --cache-ram) is in the
// memory ledger: zest gives each engine a cache of a planned size and counts
// it, so a long trace of many conversations on few slots leaves the engine's
// resident memory within 10 % of zest's prediction, and by default the cache
// holds them all. Left to itself the engine grows its cache up to 8 GiB,
// beyond anything admission counted.
// Real engine (the 'small' synthetic preset: 6 KiB of KV per token), real
// /proc measurement of the engine's process tree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import { opening } from '../lib/prompts.mjs';
import { descendants, makeHome, startZest } from '../lib/zest.mjs';

const CONVERSATIONS = 8;
const SLOTS = 2;

describe('the prompt cache in the ledger', () => {
  let zest;
  before(async () => {
    const home = makeHome({ small: { preset: 'small' } }, {
      config: `[models.small]\nparallel = ${SLOTS}\nctx_size = 4096\n`,
    });
    zest = await startZest({ home });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  const instance = async () => (await zest.json('/api/v1/ps')).data.instances.find((i) => i.model === 'small');

  test('the engine gets a cache of the planned size, counted in the prediction', async () => {
    const load = await zest.json('/api/v1/load', { model: 'small' });
    assert.equal(load.status, 200, JSON.stringify(load.data));
    const p = (await instance()).placement;
    const cpu = p.predicted_bytes.CPU;
    // Unset: four KV caches (whole MiB), since this machine has room.
    assert.equal(p.cache_ram, Math.floor(4 * cpu.kv_cache / 2 ** 20));
    assert.equal(cpu.prompt_cache, p.cache_ram * 2 ** 20);
    assert.equal(cpu.total, cpu.weights + cpu.kv_cache + cpu.compute + cpu.overhead + cpu.prompt_cache + cpu.learned + cpu.draft);
    assert.match(p.explanation, /prompt cache \d+ MiB/);
    // What the engine was told: its own command line.
    const engine = descendants(zest.pid).find((d) => d.comm.startsWith('llama-server'));
    assert.ok(engine, 'a llama-server runs');
    const argv = fs.readFileSync(`/proc/${engine.pid}/cmdline`, 'utf8').split('\0');
    assert.equal(argv[argv.indexOf('--cache-ram') + 1], String(p.cache_ram));
  });

  test(`${CONVERSATIONS} conversations on ${SLOTS} slots: the default cache holds them, the engine's RSS within 10 % of the prediction`, async (t) => {
    const history = [];
    for (let n = 0; n < CONVERSATIONS; n++) history.push([{ role: 'system', content: opening(n, 750) }]);
    let promptTokens = 0;
    const warm = [];  // each second turn's cached share
    for (let turn = 0; turn < 2; turn++) {
      for (let n = 0; n < CONVERSATIONS; n++) {
        history[n].push({ role: 'user', content: `turn ${turn} of conversation ${n}` });
        const r = await zest.json('/v1/chat/completions', { model: 'small', messages: history[n], max_tokens: 4, temperature: 0 });
        assert.equal(r.status, 200, JSON.stringify(r.data));
        history[n].push({ role: 'assistant', content: r.data.choices[0].message.content ?? '' });
        promptTokens = Math.max(promptTokens, r.data.usage.prompt_tokens);
        if (turn === 1) warm.push(r.data.usage.prompt_tokens_details.cached_tokens / r.data.usage.prompt_tokens);
      }
    }
    // The default cache holds them: every second turn reads only its new
    // tokens (a cache as large as the KV cache held one conversation beside
    // the slots, and this round-robin order found none of them).
    assert.ok(warm.every((share) => share > 0.9), `cached shares ${warm.map((s) => s.toFixed(2))}`);
    // Conversations worth caching: each idle one is more than the slots' share of the cache.
    assert.ok(promptTokens > 2000, `prompts of ${promptTokens} tokens`);
    const i = await instance();
    const predicted = i.placement.predicted_bytes.CPU.total;
    const measured = i.measured_rss_bytes;
    assert.ok(measured > 0, 'the engine is measured');
    t.diagnostic(`engine RSS ${(measured / 2 ** 20).toFixed(1)} MiB, predicted ${(predicted / 2 ** 20).toFixed(1)} MiB ` +
      `(prompt cache ${i.placement.cache_ram} MiB), prompts of ${promptTokens} tokens`);
    assert.ok(measured <= predicted * 1.1,
      `engine RSS ${(measured / 2 ** 20).toFixed(1)} MiB against ${(predicted / 2 ** 20).toFixed(1)} MiB predicted`);
  });

  test('--cache-ram in extra_args is refused: cache_ram is the option', async () => {
    const r = await zest.json('/api/v1/load', { model: 'small', options: { extra_args: ['--cache-ram', '-1'] } });
    assert.equal(r.status, 400, JSON.stringify(r.data));
    assert.match(r.data.error.message, /use cache_ram/);
  });
});
