// Conversations as chat front-ends and agents send them, for the
// prompt-cache benchmarks: each has its own opening (a system prompt), and
// each turn sends the whole history with a short question, streamed, and
// keeps the answer. What each turn cost is read from the engine's own
// usage (prompt tokens, of them cached).
import { opening } from '../../tests/lib/prompts.mjs';
import { sseData } from '../../tests/lib/zest.mjs';

const REQUEST_TIMEOUT_MS = 300_000;

// A conversation of `model` named `name`, its opening `words` words of seed `seed`.
export const conversation = (seed, name, model, words) =>
  ({ name, model, messages: [{ role: 'system', content: opening(seed, words) }], turns: [] });

// The conversation's next turn, streamed: a short question, the answer kept
// in its history. `session`: name it by prompt_cache_key (as coding agents
// do); a chat front-end names none. Returns {ttft, prompt, cached} (ms;
// tokens from the engine's usage).
export async function turn(url, c, { session = false, maxTokens = 8 } = {}) {
  c.messages.push({ role: 'user', content: `Turn ${c.turns.length + 1} of ${c.name}: go on.` });
  const body = { model: c.model, messages: c.messages, max_tokens: maxTokens, temperature: 0, ignore_eos: true,
    stream: true, stream_options: { include_usage: true } };
  if (session) body.prompt_cache_key = c.name;
  const start = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (res.status !== 200) throw new Error(`${c.name} turn ${c.turns.length + 1}: ${res.status} ${await res.text()}`);
  let ttft = null;
  let text = '';
  let usage = null;
  for await (const data of sseData(res)) {
    if (data === '[DONE]') break;
    const event = JSON.parse(data);
    if (event.error) throw new Error(`${c.name}: ${JSON.stringify(event.error)}`);
    const delta = event.choices?.[0]?.delta?.content;
    if (delta) { ttft ??= performance.now() - start; text += delta; }
    if (event.usage) usage = event.usage;
  }
  if (!usage) throw new Error(`${c.name}: no usage in the stream`);
  c.messages.push({ role: 'assistant', content: text });
  const t = { ttft: ttft ?? performance.now() - start, prompt: usage.prompt_tokens,
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0 };
  c.turns.push(t);
  return t;
}

// A short request, so a fresh engine's first compute is not a measured one.
export async function warmUp(url, model) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello.' }], max_tokens: 2 }),
  });
  if (res.status !== 200) throw new Error(`warm-up of ${url}: ${res.status} ${await res.text()}`);
  await res.text();
}

export const warmTurns = (convs) => convs.flatMap((c) => c.turns.slice(1));
// Prompt tokens processed over prompt tokens sent, summed over `turns`.
export const processedShare = (turns) =>
  turns.reduce((n, t) => n + t.prompt - t.cached, 0) / turns.reduce((n, t) => n + t.prompt, 0);
// Turns that read at least half their prompt from the cache.
export const hits = (turns) => turns.filter((t) => t.cached >= t.prompt / 2).length;
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// The p-quantile (0..1) by the nearest rank.
export const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};
