// What tests/integration/prompt_cache*.test.mjs share: conversations sent
// round robin to one model, and the engine's RSS over the ledger's
// prediction for it, within bounds on both sides.
import assert from 'node:assert/strict';
import { opening } from './prompts.mjs';

export const CONVERSATIONS = 8;
export const SLOTS = 2;
export const WORDS = 750;  // ~2,900 tokens a conversation: ~17 MiB of state each
// The bounds on engine RSS / predicted: 0.8 to 1.1.
export const LOW = 0.8;
export const HIGH = 1.1;

export const MiB = (bytes) => (bytes / 2 ** 20).toFixed(1);

export const instance = async (zest, model) =>
  (await zest.json('/api/v1/ps')).data.instances.find((i) => i.model === model);

// Turns of `conversations` conversations, round robin (each turn of each
// one evicts another from a slot); each later turn's cached share.
export async function trace(zest, model, turns, conversations = CONVERSATIONS) {
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
export async function assertWithinBounds(zest, t, model, what) {
  const i = await instance(zest, model);
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
