// Translation overhead: the same model through zest's three chat APIs, the
// OpenAI route (engine events relayed as they are) against Ollama's
// /api/chat (NDJSON) and Anthropic's /v1/messages (events), which zest
// translates chunk by chunk (relay/answer_translator.h). One zest, rounds
// interleaved so machine noise hits all alike; ratios against OpenAI's.
// Appends a table to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; the baseline: the OpenAI route's rounds). Targets:
// ratio ≥ 0.98 for tokens/s, ≤ 1.05 for the 1-token latency.
import { execFileSync } from 'node:child_process';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { benchModel, machine, pct } from './gateway_overhead.mjs';
import { everyRun, roundMedians } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 6);
const TOKENS = Number(process.env.BENCH_STREAM_TOKENS ?? 128);
const LATENCY_ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 30);
const MESSAGES = [{ role: 'user', content: 'hello' }];

// Each API's streamed request for `tokens` tokens, and what marks one
// piece of text in its stream.
const APIS = {
  openai: { path: '/v1/chat/completions', body: (n) => ({ model: 'bench', max_tokens: n, stream: true, messages: MESSAGES }), piece: /"delta":\{"content"/g },
  ollama: { path: '/api/chat', body: (n) => ({ model: 'bench', stream: true, messages: MESSAGES, options: { num_predict: n } }), piece: /"done":false/g },
  anthropic: { path: '/v1/messages', body: (n) => ({ model: 'bench', max_tokens: n, stream: true, messages: MESSAGES }), piece: /"text_delta"/g },
};

async function stream(url, api, tokens) {
  const t0 = performance.now();
  const res = await fetch(`${url}${api.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(api.body(tokens)) });
  if (res.status !== 200) throw new Error(`${api.path}: ${res.status} ${await res.text()}`);
  let pieces = 0;
  let first = null;  // when the first piece came
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    const n = (decoder.decode(chunk, { stream: true }).match(api.piece) || []).length;
    if (n > 0 && first === null) first = performance.now();
    pieces += n;
  }
  const end = performance.now();
  // The rate after the first piece, so an answer the model ends early
  // (random weights pick the end of turn now and then) is not a latency.
  return { pieces, seconds: (end - t0) / 1000, rate: pieces > 1 ? (pieces - 1) / ((end - first) / 1000) : null };
}

async function main() {
  const watch = watchMachine();
  const zest = await startZest({ home: makeHome({ bench: benchModel() }), env: { ZEST_LOG_LEVEL: 'info' } });
  const names = Object.keys(APIS);
  const tps = Object.fromEntries(names.map((n) => [n, []]));
  const latency = Object.fromEntries(names.map((n) => [n, []]));
  try {
    for (const name of names) await stream(zest.url, APIS[name], 8);  // load and warm
    for (let round = 0; round < ROUNDS; round++) {
      // Rotated order each round.
      for (const name of [...names.slice(round % 3), ...names.slice(0, round % 3)]) {
        const { pieces, rate } = await stream(zest.url, APIS[name], TOKENS);
        if (rate === null || pieces < 16) continue;  // ended too early to time
        tps[name].push(rate);
        console.error(`${name}: ${rate.toFixed(1)} pieces/s (${pieces})`);
      }
    }
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      for (const name of names) latency[name].push((await stream(zest.url, APIS[name], 1)).seconds * 1000);
    }
  } finally {
    await zest.stop();
    zest.cleanup();
  }
  const seen = watch.stop();
  const median = (xs) => pct(xs, 0.5);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
  const row = (label, values, target) => `| ${label} | ${values.openai.toFixed(1)} | ${values.ollama.toFixed(1)} | ${values.anthropic.toFixed(1)} | ${(values.ollama / values.openai).toFixed(3)} | ${(values.anthropic / values.openai).toFixed(3)} | ${target} |`;
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — API translation: ${machine()} — commit ${commit}`,
    '',
    `Model: synthetic bench preset (~0.5B params, Q8_0); one zest; ${ROUNDS} rounds of one ${TOKENS}-token stream per API (rotated order), ` +
      `then ${LATENCY_ROUNDS} one-token streams per API. "Pieces" are the text pieces the client gets (OpenAI: content deltas; Ollama: ` +
      'lines; Anthropic: text_delta events): llama-server holds back incomplete UTF-8, so a piece can be more than one token.',
    '',
    '| metric | OpenAI | Ollama | Anthropic | Ollama/OpenAI | Anthropic/OpenAI | target |',
    '|---|---:|---:|---:|---:|---:|---|',
    row('1 stream, pieces/s after the first, median', Object.fromEntries(names.map((n) => [n, median(tps[n])])), '≥ 0.98'),
    row('1-token stream latency p50 (ms)', Object.fromEntries(names.map((n) => [n, median(latency[n])])), '≤ 1.05'),
    '',
    `Every round's pieces/s after the first, in order (rounds that ended before 16 pieces left out): ` +
      names.map((n) => `${n} ${everyRun(tps[n])}`).join('; ') + '.',
  ];
  const tpsOf = (n) => median(tps[n]);
  const p50Of = (n) => median(latency[n]);
  const worse = Math.max(p50Of('ollama'), p50Of('anthropic')) / p50Of('openai');
  appendResults(lines, {
    // The 1-token latencies were measured request by request: their rounds
    // are three consecutive thirds.
    verdict: verdict(seen, { 'OpenAI pieces/s': tps.openai, 'OpenAI 1-token latency': roundMedians(latency.openai, 3) }),
    current: [
      { measure: 'API translation: pieces/s, Ollama / OpenAI', value: (tpsOf('ollama') / tpsOf('openai')).toFixed(3), target: '≥ 0.98' },
      { measure: 'API translation: pieces/s, Anthropic / OpenAI', value: (tpsOf('anthropic') / tpsOf('openai')).toFixed(3), target: '≥ 0.98' },
      { measure: 'API translation: 1-token latency p50, the slower of Ollama and Anthropic / OpenAI', value: worse.toFixed(3), target: '≤ 1.05' },
    ],
  });
}

await main();
