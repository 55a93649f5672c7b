// Usage tells the truth about the engine's prompt cache in every API: the
// second and third turns of one long conversation find most of their prompt
// in llama-server's cache, and each API says so in its own words, streamed
// and not: OpenAI chat's usage.prompt_tokens_details.cached_tokens, the
// Responses API's usage.input_tokens_details.cached_tokens, Anthropic's
// cache_read_input_tokens (with input_tokens then only the rest), Ollama's
// prompt_eval_count (only what was evaluated). Real engine, tiny synthetic
// model; the first turn of each conversation is the cold baseline.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { opening as distinctOpening } from '../lib/prompts.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';

// Each conversation opens with its own 250 words, so one API's conversation
// does not find another's in the cache.
const opening = (n) => distinctOpening(n, 250);

// The last Ollama line of a streamed answer (NDJSON).
async function lastLine(res) {
  const lines = (await res.text()).trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

// The usage of a streamed Responses answer: its closing event's.
const responsesUsage = (events) => events.map((e) => JSON.parse(e))
  .find((e) => e.type === 'response.completed' || e.type === 'response.incomplete').response.usage;

describe('cached prompt tokens in every API', () => {
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({ tiny: 'tiny' }, { config: '[models.tiny]\nparallel = 1\nctx_size = 2048\n' }),
    });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  // Three turns of one conversation in an API: `turn(k, history)` sends the
  // k-th (0 cold, 1 streamed, 2 whole) and returns {total, cached} as the
  // API reports them, and the answer's text for the history.
  async function threeTurns(t, api, turn) {
    const seen = [];
    const history = [];
    for (let k = 0; k < 3; k++) {
      history.push({ role: 'user', content: `question ${k}` });
      const { total, cached, text } = await turn(k, history);
      history.push({ role: 'assistant', content: text || 'ok' });
      seen.push({ total, cached });
    }
    t.diagnostic(`${api}: ${seen.map((s) => `${s.cached}/${s.total}`).join(', ')} cached/prompt`);
    assert.ok(seen[0].total > 800, `a long prompt: ${seen[0].total} tokens`);
    assert.ok(seen[0].cached < seen[0].total / 4, `a cold first turn: ${JSON.stringify(seen[0])}`);
    for (const k of [1, 2]) {
      assert.ok(seen[k].cached >= seen[k].total * 0.8 && seen[k].cached < seen[k].total,
        `turn ${k} (${k === 1 ? 'streamed' : 'whole'}) mostly from the cache: ${JSON.stringify(seen[k])}`);
    }
  }

  const common = { model: 'tiny', temperature: 0 };

  test('OpenAI chat: prompt_tokens_details.cached_tokens', async (t) => {
    const system = { role: 'system', content: opening(1) };
    await threeTurns(t, 'chat', async (k, history) => {
      const body = { ...common, messages: [system, ...history], max_tokens: 4 };
      if (k === 1) {
        const r = await zest.stream('/v1/chat/completions', { ...body, stream_options: { include_usage: true } });
        assert.equal(r.status, 200);
        const chunks = r.events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
        const usage = chunks.find((c) => c.usage).usage;
        const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
        return { total: usage.prompt_tokens, cached: usage.prompt_tokens_details.cached_tokens, text };
      }
      const r = await zest.json('/v1/chat/completions', body);
      assert.equal(r.status, 200, JSON.stringify(r.data));
      const { usage } = r.data;
      return { total: usage.prompt_tokens, cached: usage.prompt_tokens_details.cached_tokens, text: r.data.choices[0].message.content ?? '' };
    });
  });

  test('Responses: input_tokens_details.cached_tokens', async (t) => {
    const instructions = opening(2);
    await threeTurns(t, 'responses', async (k, history) => {
      const body = { ...common, instructions, input: history, max_output_tokens: 4 };
      if (k === 1) {
        const r = await zest.stream('/v1/responses', body);
        assert.equal(r.status, 200);
        const usage = responsesUsage(r.events);
        return { total: usage.input_tokens, cached: usage.input_tokens_details.cached_tokens, text: '' };
      }
      const r = await zest.json('/v1/responses', body);
      assert.equal(r.status, 200, JSON.stringify(r.data));
      const { usage } = r.data;
      return { total: usage.input_tokens, cached: usage.input_tokens_details.cached_tokens, text: r.data.output_text ?? '' };
    });
  });

  test('Anthropic: cache_read_input_tokens, and input_tokens only the rest', async (t) => {
    const system = opening(3);
    await threeTurns(t, 'anthropic', async (k, history) => {
      const body = { ...common, system, messages: history, max_tokens: 4 };
      let usage;
      let text = '';
      if (k === 1) {
        const r = await zest.stream('/v1/messages', body);
        assert.equal(r.status, 200);
        const events = r.events.map((e) => JSON.parse(e));
        usage = events.find((e) => e.type === 'message_delta').usage;
        text = events.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text).join('');
      } else {
        const r = await zest.json('/v1/messages', body);
        assert.equal(r.status, 200, JSON.stringify(r.data));
        usage = r.data.usage;
        text = r.data.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      }
      assert.equal(usage.cache_creation_input_tokens, 0);
      // Anthropic's parts add up to the prompt; input_tokens is what was not read.
      return { total: usage.input_tokens + usage.cache_read_input_tokens, cached: usage.cache_read_input_tokens, text };
    });
  });

  test('Ollama: prompt_eval_count counts only what was evaluated', async (t) => {
    const system = { role: 'system', content: opening(4) };
    const cold = [];
    const warm = [];
    const history = [];
    for (let k = 0; k < 3; k++) {
      history.push({ role: 'user', content: `question ${k}` });
      const body = { model: 'tiny', messages: [system, ...history], options: { num_predict: 4, temperature: 0 } };
      const res = await zest.fetch('/api/chat', { method: 'POST', body: JSON.stringify({ ...body, stream: k === 1 }) });
      assert.equal(res.status, 200);
      const last = k === 1 ? await lastLine(res) : await res.json();
      (k === 0 ? cold : warm).push(last.prompt_eval_count);
      history.push({ role: 'assistant', content: last.message?.content ?? '' });
    }
    // The whole prompt, as the engine counts it, from OpenAI's usage of the same turn.
    const same = await zest.json('/v1/chat/completions', { ...common, messages: [system, ...history.slice(0, 1)], max_tokens: 4 });
    const prompt = same.data.usage.prompt_tokens;
    t.diagnostic(`ollama: evaluated ${cold[0]} cold, ${warm.join(', ')} warm, of prompts of about ${prompt} tokens`);
    assert.ok(cold[0] > 800, `the cold turn evaluated its whole prompt: ${cold[0]}`);
    for (const count of warm) {
      assert.ok(count > 0 && count < prompt * 0.2, `a warm turn evaluated only its new tokens: ${count}`);
    }
  });
});
