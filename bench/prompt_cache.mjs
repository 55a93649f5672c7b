// Conversations and the prompt cache (issue 33), side by side in one run:
//
// 1. Ledger: one model, 8 conversations of ~3,200 tokens on 2 slots, 4
//    turns each, one after another: the engine's RSS after the trace
//    (and its peak, sampled after every turn) against `zest ps`'s prediction
//    (predicted_total_bytes, which counts the --cache-ram zest gave the
//    engine); then the same trace with the
//    engine's default cache (cache_ram = 8192 MiB, llama-server's default),
//    against the prediction without the cache (what zest predicted before
//    the ledger counted it): the drift.
// 2. Nodes: two zest nodes behind HAProxy (`zest haproxy-config`), 8
//    conversations of one model, each with its own prompt_cache_key, 3
//    turns, all 8 at once: which node served each (zest's
//    zest_session_affinity_total per node: a conversation that moved is a
//    second miss), the prompt tokens warm turns processed, and the turns a
//    second the 8 conversations got from the two nodes against one node
//    alone behind the same HAProxy. Both nodes share this machine's cores.
// 3. Swap: two models that do not fit together (placement.memory_limit =
//    1.5 × one model's prediction, cache_ram 16 MiB), 4 conversations each
//    on engines with 2 slots, ~3,000-token prompts: each model's
//    conversations in a round, then the other's, 3 rounds; then strict
//    alternation, request by request. zest against llama-server's router
//    (`--models-max 1`, started from zest's engine argv,
//    bench/lib/router.mjs), the two in lockstep: warm-turn TTFT and the
//    prompt tokens each warm turn processed (usage.prompt_tokens_details).
// 4. First turns: row 1's first turns through zest against a direct
//    llama-server run with zest's engine argv, one after the other.
//
// Every engine runs one thread (engine.threads = 1; the router and the
// direct engine get -t 1 too): on this shared 2-core VM two threads wait on
// each other at every barrier whenever a build takes a core, which made a
// 3,900-token prefill take 2.5 s on 2 threads and 0.5 s on one.
//
// Usage: node bench/prompt_cache.mjs. BENCH_PC_SWAP_ROUNDS (3),
// BENCH_PC_ALT_ROUNDS (2): rounds of the swap row's two orders;
// BENCH_PC_WORDS (800): words of each conversation's opening (~3.9 tokens
// a word with the synthetic vocabulary). Appends a table to bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineArgv, makeHome, repo, sseData, startZest } from '../tests/lib/zest.mjs';
import { machine, startDirect } from './gateway_overhead.mjs';
import { haproxyVersion, startHaproxy } from './lib/haproxy.mjs';
import { startRouter } from './lib/router.mjs';
import { appendResults } from './lib/results.mjs';
import { opening } from '../tests/lib/prompts.mjs';
import { everyRun } from './lib/runs.mjs';

const env = (name, def) => Number(process.env[name] ?? def);
const WORDS = env('BENCH_PC_WORDS', 800);
const SWAP_ROUNDS = env('BENCH_PC_SWAP_ROUNDS', 3);
const ALT_ROUNDS = env('BENCH_PC_ALT_ROUNDS', 2);
const CONVERSATIONS = 8;
const LEDGER_TURNS = 4;
const NODE_TURNS = 3;
const SLOTS = 2;
const CTX = 4096;         // tokens per slot
const MAX_TOKENS = 8;     // each answer: the prompt is what is measured
const ENGINE_DEFAULT_CACHE_MIB = 8192;
const SWAP_CACHE_MIB = 16;
// 2 blocks of width 256, 4 KV heads of 64 (f16): 2 KiB of KV cache a token,
// so a ~3,200-token conversation is ~6.5 MiB in the prompt cache, while a
// cold prefill stays near a second on one loaded core.
const SHAPE = ['--layers', '2', '--embedding', '256', '--heads', '4', '--kv-heads', '4', '--ff', '256',
  '--type', 'f16', '--context', '8192'];
const KV_PER_TOKEN = 2 * 4 * 64 * 2 * 2;  // blocks × KV heads × head size × (K, V) × f16
const ZEST_ENV = { ZEST_THREADS: '1', ZEST_LOG_LEVEL: 'debug' };
const REQUEST_TIMEOUT_MS = 300_000;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-prompt-cache-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const modelsDir = path.join(work, 'models');
fs.mkdirSync(modelsDir);
const modelFile = (name, seed) => {
  const file = path.join(modelsDir, `${name}.gguf`);
  execFileSync(path.join(repo, 'build/zest-make-model'), ['--preset', 'tiny', ...SHAPE, '--seed', String(seed), '--out', file]);
  return file;
};
const modelConfig = (names, extra = '') =>
  names.map((m) => `[models."${m}"]\nparallel = ${SLOTS}\nctx_size = ${CTX}\n${extra}`).join('');
const t0 = performance.now();
const say = (what) => console.error(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${what}`);

const conversation = (seed, name, model) =>
  ({ name, model, messages: [{ role: 'system', content: opening(seed, WORDS) }], turns: [] });

// The conversation's next turn, streamed: a short question, the answer kept
// in its history. `session`: name it by prompt_cache_key. Returns {ttft,
// prompt, cached} (ms; tokens from the engine's usage).
async function turn(url, c, { session = false } = {}) {
  c.messages.push({ role: 'user', content: `Turn ${c.turns.length + 1} of ${c.name}: go on.` });
  const body = { model: c.model, messages: c.messages, max_tokens: MAX_TOKENS, temperature: 0, ignore_eos: true,
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
async function warmUp(url, model) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello.' }], max_tokens: 2 }),
  });
  if (res.status !== 200) throw new Error(`warm-up of ${url}: ${res.status} ${await res.text()}`);
  await res.text();
}

const warmTurns = (convs) => convs.flatMap((c) => c.turns.slice(1));
// Prompt tokens processed over prompt tokens sent, summed over `turns`.
const processedShare = (turns) =>
  turns.reduce((n, t) => n + t.prompt - t.cached, 0) / turns.reduce((n, t) => n + t.prompt, 0);
// Turns that read at least half their prompt from the cache.
const hits = (turns) => turns.filter((t) => t.cached >= t.prompt / 2).length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mib = (b) => b / 2 ** 20;

async function loaded(zest, model) {
  const r = await zest.json('/api/v1/load', { model });
  if (r.status !== 200) throw new Error(`loading ${model}: ${JSON.stringify(r.data)}`);
  return (await zest.instances()).find((i) => i.model === model);
}

// Row 4: the first turns of `convs` through zest, each beside the same
// opening sent to a direct llama-server with zest's engine argv, in
// alternating order. The direct engine is stopped before the trace goes on.
async function firstTurns(zest, instance, convs) {
  const direct = await startDirect(instance.pid);
  const twins = convs.map((c) => ({ ...c, messages: [...c.messages], turns: [] }));
  try {
    // A first request on each, so neither pays for its first compute alone.
    await warmUp(zest.url, 'm');
    await warmUp(direct.url, 'm');
    for (let i = 0; i < convs.length; i++) {
      if (i % 2) { await turn(zest.url, convs[i]); await turn(direct.url, twins[i]); } else { await turn(direct.url, twins[i]); await turn(zest.url, convs[i]); }
    }
  } finally {
    direct.proc.kill('SIGTERM');
  }
  return { zest: convs.map((c) => c.turns[0].ttft), direct: twins.map((c) => c.turns[0].ttft) };
}

// Row 1, one trace: `cacheRam` unset = zest's plan, else that many MiB.
async function ledgerRun(file, { cacheRam, seed, direct = false }) {
  const home = makeHome({ m: file }, { config: modelConfig(['m'], cacheRam ? `cache_ram = ${cacheRam}\n` : '') });
  const zest = await startZest({ home, env: ZEST_ENV });
  try {
    const instance = await loaded(zest, 'm');
    const convs = Array.from({ length: CONVERSATIONS }, (_, n) => conversation(seed + n, `ledger-${n}`, 'm'));
    const first = direct ? await firstTurns(zest, instance, convs) : null;
    const rss = async () => (await zest.instances()).find((i) => i.model === 'm').measured_rss_bytes;
    let peak = await rss();
    for (let t = direct ? 1 : 0; t < LEDGER_TURNS; t++) {
      for (const c of convs) { await turn(zest.url, c); peak = Math.max(peak, await rss()); }
    }
    const ps = (await zest.instances()).find((i) => i.model === 'm');
    const cpu = ps.placement.predicted_bytes.CPU;
    return { predicted: ps.placement.predicted_total_bytes, promptCache: cpu.prompt_cache, rss: ps.measured_rss_bytes, peak,
      rssAtLoad: instance.measured_rss_bytes, cacheRam: ps.placement.cache_ram, convs, first };
  } finally {
    await zest.stop();
    zest.cleanup();
  }
}

// zest_session_affinity_total for `model` on a node, by outcome.
async function affinity(zest, model) {
  const text = await (await zest.fetch('/metrics')).text();
  const out = { hit: 0, miss: 0, fallback: 0 };
  for (const m of text.matchAll(/^zest_session_affinity_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.model === model) out[labels.outcome] = Number(m[2]);
  }
  return out;
}

// Every conversation's turns in order, all conversations at once; seconds.
async function concurrently(url, convs, turns) {
  const start = performance.now();
  await Promise.all(convs.map(async (c) => { for (let t = 0; t < turns; t++) await turn(url, c, { session: true }); }));
  return (performance.now() - start) / 1000;
}

// Row 2.
async function nodesRow(file) {
  const nodes = [];
  const proxies = [];
  try {
    for (let i = 0; i < 2; i++) {
      nodes.push(await startZest({ home: makeHome({ m: file }, { config: modelConfig(['m']) }), env: ZEST_ENV }));
      await loaded(nodes[i], 'm');
      await warmUp(nodes[i].url, 'm');
    }
    proxies.push(await startHaproxy(work, nodes.slice(0, 1)), await startHaproxy(work, nodes));
    const make = (seed) => Array.from({ length: CONVERSATIONS }, (_, n) => conversation(seed + n, `node-conv-${seed + n}`, 'm'));
    const solo = make(300);
    const soloSeconds = await concurrently(proxies[0].url, solo, NODE_TURNS);
    say(`nodes: one node ${soloSeconds.toFixed(1)} s`);
    const before = await Promise.all(nodes.map((n) => affinity(n, 'm')));
    const pair = make(400);
    const pairSeconds = await concurrently(proxies[1].url, pair, NODE_TURNS);
    const after = await Promise.all(nodes.map((n) => affinity(n, 'm')));
    say(`nodes: two nodes ${pairSeconds.toFixed(1)} s`);
    const delta = after.map((a, i) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - before[i][k]])));
    return { solo, soloSeconds, pair, pairSeconds, perNode: delta };
  } finally {
    for (const p of proxies) await p.stop();
    for (const n of nodes) { await n.stop(); n.cleanup(); }
  }
}

// Row 3's request orders over conversations A (model a) and B (model b).
const ORDERS = {
  rounds: (A, B) => [...A, ...B],
  alternation: (A, B) => A.flatMap((c, i) => [c, B[i]]),
};

// One order's conversations on zest and on the router in lockstep: each
// step's turn on one, then the same step on the other (who goes first
// alternates), so the machine's load falls on both alike. Each server
// keeps its own order of requests; both idle while the other computes.
// Each conversation names its session (prompt_cache_key), as coding agents
// do (Codex's prompt_cache_key, Claude Code's metadata.user_id); the router
// gets the same bodies and ignores it.
async function swapRuns(order, rounds, urls) {
  const sides = urls.map((url, k) => {
    const A = Array.from({ length: 4 }, (_, n) => conversation(500 + 100 * k + n, `a-${n}`, 'a'));
    const B = Array.from({ length: 4 }, (_, n) => conversation(550 + 100 * k + n, `b-${n}`, 'b'));
    return { url, A, B, steps: ORDERS[order](A, B) };
  });
  let k = 0;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < sides[0].steps.length; i++, k++) {
      for (const side of k % 2 ? [...sides].reverse() : sides) await turn(side.url, side.steps[i], { session: true });
    }
  }
  return sides.map((side) => [...side.A, ...side.B]);
}

// Row 3: zest and the router, each order on fresh servers.
async function swapRow() {
  const files = { a: modelFile('a', 11), b: modelFile('b', 12) };
  // Each engine's cache at 16 MiB (two of these conversations beside its
  // two slots): its default (four KV caches, within a quarter of the free
  // RAM) would be cut to what the memory limit leaves, smaller for the
  // second model than the first.
  const config = modelConfig(['a', 'b'], `cache_ram = ${SWAP_CACHE_MIB}\n`);
  const probe = await startZest({ home: makeHome(files, { config }), env: ZEST_ENV });
  let predicted;
  let argv;
  try {
    const i = await loaded(probe, 'a');
    predicted = i.placement.predicted_total_bytes;
    argv = engineArgv(i.pid);
  } finally { await probe.stop(); probe.cleanup(); }
  const limit = Math.round(predicted * 1.5);
  const out = { predicted, limit };
  for (const [order, rounds] of [['rounds', SWAP_ROUNDS], ['alternation', ALT_ROUNDS]]) {
    const zest = await startZest({ home: makeHome(files, { config }), env: { ...ZEST_ENV, ZEST_MEMORY_LIMIT: String(limit) } });
    let router;
    try {
      router = await startRouter(argv, { modelsDir, modelsMax: 1, parallel: SLOTS, ctx: CTX, extra: ['-t', '1'] });
      const [z, r] = await swapRuns(order, rounds, [zest.url, router.url]);
      out[`zest ${order}`] = { convs: z, loads: (zest.logs().match(/\bloading '/g) ?? []).length };
      out[`router ${order}`] = { convs: r, loads: router.loads() };
    } finally {
      await router?.stop();
      await zest.stop();
      zest.cleanup();
    }
    say(`swap: ${order}`);
  }
  return out;
}

const ledgerFile = modelFile('m', 7);
const ledger = await ledgerRun(ledgerFile, { seed: 100, direct: true });
say(`ledger: RSS ${mib(ledger.rss).toFixed(1)} MiB, predicted ${mib(ledger.predicted).toFixed(1)} MiB`);
const drift = await ledgerRun(ledgerFile, { seed: 200, cacheRam: ENGINE_DEFAULT_CACHE_MIB });
say(`ledger, default cache: RSS ${mib(drift.rss).toFixed(1)} MiB`);
const nodes = await nodesRow(ledgerFile);
const swap = await swapRow();

// The table.
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const promptTokens = median(ledger.convs.map((c) => c.turns[0].prompt));
const swapPrompt = median(swap['zest rounds'].convs.map((c) => c.turns[0].prompt));
const preLedger = drift.predicted - drift.promptCache;
const rowsOut = [];
const row = (...cells) => rowsOut.push(`| ${cells.join(' | ')} |`);
row('Ledger', `engine RSS after the trace / \`zest ps\` PREDICTED (cache_ram ${ledger.cacheRam} MiB, zest's plan), MiB`,
  `${f(mib(ledger.rss), 1)} / ${f(mib(ledger.predicted), 1)}`, '', f(ledger.rss / ledger.predicted), '≤ 1.10');
row('Ledger', 'peak engine RSS during the trace (after each turn) / PREDICTED, MiB',
  `${f(mib(ledger.peak), 1)} / ${f(mib(ledger.predicted), 1)}`, '', f(ledger.peak / ledger.predicted), '≤ 1.10');
row('Ledger, engine default cache', `engine RSS after the trace / PREDICTED without the cache (cache_ram ${ENGINE_DEFAULT_CACHE_MIB}), MiB`,
  `${f(mib(drift.rss), 1)} / ${f(mib(preLedger), 1)}`, '', f(drift.rss / preLedger), 'the drift');
row('Ledger', 'warm turns from the cache; tokens processed / prompt (zest\'s plan | default cache)',
  `${hits(warmTurns(ledger.convs))}/${warmTurns(ledger.convs).length}; ${f(processedShare(warmTurns(ledger.convs)))}`,
  `${hits(warmTurns(drift.convs))}/${warmTurns(drift.convs).length}; ${f(processedShare(warmTurns(drift.convs)))}`, '', '');
const served = nodes.perNode.map((n) => n.miss);
row('Nodes', 'conversations per node (each node\'s session misses: a conversation\'s first turn there)',
  served.join(' + '), '', '', 'both serve');
row('Nodes', 'conversations that moved between turns (misses beyond one a conversation)',
  String(served.reduce((a, b) => a + b, 0) - CONVERSATIONS), '', '', '0');
row('Nodes', 'warm-turn tokens processed / prompt (two nodes | one node)', f(processedShare(warmTurns(nodes.pair))),
  f(processedShare(warmTurns(nodes.solo))), '', '≤ 0.2');
const tps = (convs, s) => convs.length * NODE_TURNS / s;
row('Nodes', `turns/s, ${CONVERSATIONS} conversations at once (two nodes | one node)`, f(tps(nodes.pair, nodes.pairSeconds)),
  f(tps(nodes.solo, nodes.soloSeconds)), f(tps(nodes.pair, nodes.pairSeconds) / tps(nodes.solo, nodes.soloSeconds)), '');
for (const order of ['rounds', 'alternation']) {
  const z = warmTurns(swap[`zest ${order}`].convs);
  const r = warmTurns(swap[`router ${order}`].convs);
  const label = order === 'rounds' ? `Swap, model by model (${SWAP_ROUNDS} round${SWAP_ROUNDS === 1 ? '' : 's'})` : `Swap, strict alternation (${ALT_ROUNDS} round${ALT_ROUNDS === 1 ? '' : 's'})`;
  row(label, 'warm-turn TTFT, median ms (zest | router)', f(median(z.map((t) => t.ttft)), 0), f(median(r.map((t) => t.ttft)), 0),
    f(median(z.map((t) => t.ttft)) / median(r.map((t) => t.ttft))), order === 'rounds' ? '≤ 0.3' : 'reported');
  row(label, 'warm turns from the cache; tokens processed / prompt', `${hits(z)}/${z.length}; ${f(processedShare(z))}`,
    `${hits(r)}/${r.length}; ${f(processedShare(r))}`, '', order === 'rounds' ? '≤ 0.2' : 'reported');
  row(label, 'model loads', String(swap[`zest ${order}`].loads), String(swap[`router ${order}`].loads), '', '');
}
row('First turns', `TTFT, median ms (zest | direct llama-server, zest's argv), ${CONVERSATIONS} each`,
  f(median(ledger.first.zest), 0), f(median(ledger.first.direct), 0), f(median(ledger.first.zest) / median(ledger.first.direct)), '≤ 1.05');

const ttfts = (convs, from) => everyRun(convs.flatMap((c) => c.turns.slice(from)).map((t) => t.ttft), 0);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
const lines = [
  `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — conversations and the prompt cache: ${machine()} — commit ${commit}`,
  '',
  `Synthetic model (zest-make-model ${SHAPE.join(' ')}; ${KV_PER_TOKEN / 1024} KiB of KV cache a token), ${SLOTS} slots of ${CTX} tokens, ` +
    `openings of ${WORDS} words (median first prompt ${promptTokens} tokens), ${MAX_TOKENS}-token answers at temperature 0, streamed; ` +
    'every engine on one thread (zest: engine.threads = 1; router and direct: -t 1). Tokens processed = prompt_tokens − ' +
    'usage.prompt_tokens_details.cached_tokens, from the engine; "from the cache" = at least half the prompt cached. ' +
    `Ledger: ${CONVERSATIONS} conversations × ${LEDGER_TURNS} turns, one request at a time. Nodes: two zest nodes (one machine) behind HAProxy ` +
    `${haproxyVersion()} with \`zest haproxy-config\`, ${CONVERSATIONS} conversations × ${NODE_TURNS} turns, each conversation's turns in order, ` +
    'all conversations at once, prompt_cache_key per conversation; one node alone = the same HAProxy config with one node. ' +
    `Swap: models a and b, memory limit ${f(mib(swap.limit), 1)} MiB = 1.5 × one model's prediction (${f(mib(swap.predicted), 1)} MiB, cache_ram ${SWAP_CACHE_MIB} MiB each), ` +
    `4 conversations each, prompt_cache_key per conversation (median first prompt ${swapPrompt} tokens); router: llama-server --models-dir --models-max 1, ` +
    'from zest\'s engine argv, run in lockstep with zest (each step on one, then on the other). Warm turns are every turn after a conversation\'s first; their TTFT includes a model load where one was needed.',
  '',
  '| row | measure | zest | baseline | ratio | target |',
  '|---|---|---:|---:|---:|---|',
  ...rowsOut,
  '',
  'Every value, in order (ms unless said):',
  '',
  `- Ledger RSS: at load ${f(mib(ledger.rssAtLoad), 1)} MiB, peak ${f(mib(ledger.peak), 1)} MiB, after ${f(mib(ledger.rss), 1)} MiB (zest's plan); ` +
    `at load ${f(mib(drift.rssAtLoad), 1)} MiB, peak ${f(mib(drift.peak), 1)} MiB, after ${f(mib(drift.rss), 1)} MiB (default cache)`,
  `- First-turn TTFT: zest ${everyRun(ledger.first.zest, 0)}; direct ${everyRun(ledger.first.direct, 0)}`,
  `- Ledger warm-turn TTFT: zest's plan ${ttfts(ledger.convs, 1)}; default cache ${ttfts(drift.convs, 1)}`,
  `- Nodes, per node (hit/miss/fallback): ${nodes.perNode.map((n) => `${n.hit}/${n.miss}/${n.fallback}`).join(', ')}; ` +
    `seconds: two nodes ${f(nodes.pairSeconds, 1)}, one node ${f(nodes.soloSeconds, 1)}`,
  ...['rounds', 'alternation'].flatMap((order) => ['zest', 'router'].map((who) =>
    `- Swap ${order}, ${who}, TTFT by conversation then turn: ${swap[`${who} ${order}`].convs.map((c) => `${c.name} ${c.turns.map((t) => t.ttft.toFixed(0)).join('/')}`).join('; ')}`)),
  '',
];
// BENCH_PC_DRY: print the table only (a trial run with smaller settings).
if (process.env.BENCH_PC_DRY) console.log(lines.join('\n'));
else appendResults(['', ...lines]);
say('done');
