// Conversations and the prompt cache (issues 33 and 45), side by side in
// one run. Each row names its workload's shape: whether requests name a
// session, the memory budget, the model's KV bytes a token, and which
// settings are not the defaults.
//
// 1. Ledger: one model sized like a user's in KV (8 KiB a token), default
//    settings but 2 slots, 8 conversations of ~3,200 tokens that name no
//    session, 4 turns each, one after another: the engine's RSS after the
//    trace (and its peak, sampled after every turn) against `zest ps`'s
//    prediction (predicted_total_bytes: what the ledger holds for the
//    cache, placement/prompt_cache.h), both bounds; then the same trace
//    with cache_ram = 8192 (llama-server's own default ceiling).
// 2. Nodes: two zest nodes behind HAProxy (`zest haproxy-config`), 8
//    conversations of one model (2 KiB of KV a token), each with its own
//    prompt_cache_key, 3 turns, all 8 at once: which node served each
//    (zest_session_affinity_total per node: a conversation that moved is a
//    second miss), the prompt tokens warm turns processed, and the turns a
//    second from two nodes against one node behind the same HAProxy.
// 3. Swap, agents: two models (2 KiB of KV a token) that do not fit
//    together (placement.memory_limit = 1.5 × one model's prediction,
//    cache_ram 16 MiB), 4 conversations each naming its session
//    (prompt_cache_key, as coding agents do), 2 slots: each model's
//    conversations in a round, then the other's; then strict alternation.
// 4. Swap, a chat front-end (issue 45): two models sized like a user's in
//    KV (8 KiB a token), default settings but 2 slots, a memory budget of
//    1.5 × one model's prediction, 4 conversations each with its own
//    ~3,200-token system prompt and no session field, short turns, the
//    models in strict alternation (every request a swap), 4 rounds. Warm
//    TTFT median and p90 and the per-round spread.
// 5. First turns: row 1's first turns through zest against a direct
//    llama-server run with zest's engine argv, one after the other.
// Rows 3 and 4 run against llama-server's router (`--models-max 1`, from
// zest's engine argv, bench/lib/router.mjs) in lockstep: each step's turn
// on one, then the same step on the other (who goes first alternates).
//
// Every engine runs one thread (engine.threads = 1; the router and the
// direct engine get -t 1 too): on this 2-core VM two threads wait on each
// other at every barrier whenever anything else takes a core. The run
// counts only on a quiet machine (bench/lib/quiet.mjs; the router's
// per-round medians are the baseline whose spread is checked).
//
// Usage: node bench/prompt_cache.mjs. BENCH_PC_ROWS (ledger,nodes,swap,
// frontend): the rows to run; BENCH_PC_SWAP_ROUNDS (3), BENCH_PC_ALT_ROUNDS
// (2), BENCH_PC_FRONT_ROUNDS (4): rounds; BENCH_PC_WORDS (800): words of
// each conversation's opening (~3.9 tokens a word with the synthetic
// vocabulary). Appends a table to bench/RESULTS.md when quiet.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineArgv, makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine, startDirect } from './gateway_overhead.mjs';
import { haproxyVersion, startHaproxy } from './lib/haproxy.mjs';
import { startRouter } from './lib/router.mjs';
import { appendResults, commit } from './lib/results.mjs';
import {
  conversation as conversationOf, hits, median, processedShare, quantile, turn, warmTurns, warmUp,
} from './lib/conversations.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { everyRun } from './lib/runs.mjs';

const env = (name, def) => Number(process.env[name] ?? def);
const WORDS = env('BENCH_PC_WORDS', 800);
const SWAP_ROUNDS = env('BENCH_PC_SWAP_ROUNDS', 3);
const ALT_ROUNDS = env('BENCH_PC_ALT_ROUNDS', 2);
const FRONT_ROUNDS = env('BENCH_PC_FRONT_ROUNDS', 4);
// ~3,200 tokens: a chat front-end's system prompt (instructions, memory, tools).
const FRONT_WORDS = env('BENCH_PC_FRONT_WORDS', 820);
const ROWS = new Set((process.env.BENCH_PC_ROWS ?? 'ledger,nodes,swap,frontend').split(','));
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
// Sized like a user's model in KV (a 0.5B model holds 12 KiB a token, a 1B
// 32 KiB): 4 blocks of width 512, 8 KV heads of 64, Q8_0 weights, f16 KV:
// 8 KiB a token, a ~3,200-token conversation 25 MiB; its cold prefill takes
// seconds on one core, as a user's would.
const USER_SHAPE = ['--layers', '4', '--embedding', '512', '--heads', '8', '--kv-heads', '8', '--ff', '1024',
  '--type', 'q8_0', '--context', '8192'];
const USER_KV_PER_TOKEN = 4 * 8 * 64 * 2 * 2;
const ZEST_ENV = { ZEST_THREADS: '1', ZEST_LOG_LEVEL: 'debug' };

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-prompt-cache-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const modelsDir = path.join(work, 'models');
fs.mkdirSync(modelsDir);
const modelFile = (name, seed, shape = SHAPE) => {
  const file = path.join(modelsDir, `${name}.gguf`);
  execFileSync(path.join(repo, 'build/zest-make-model'), ['--preset', 'tiny', ...shape, '--seed', String(seed), '--out', file]);
  return file;
};
const modelConfig = (names, extra = '') =>
  names.map((m) => `[models."${m}"]\nparallel = ${SLOTS}\nctx_size = ${CTX}\n${extra}`).join('');
const t0 = performance.now();
const say = (what) => console.error(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${what}`);

const conversation = (seed, name, model, words = WORDS) => conversationOf(seed, name, model, words);
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
// `session`: each conversation names its session (prompt_cache_key), as
// coding agents do; the router gets the same bodies and ignores it.
async function swapRuns(order, rounds, urls, { models = ['a', 'b'], session = true, words = WORDS } = {}) {
  const sides = urls.map((url, k) => {
    const A = Array.from({ length: 4 }, (_, n) => conversation(500 + 100 * k + n, `${models[0]}-${n}`, models[0], words));
    const B = Array.from({ length: 4 }, (_, n) => conversation(550 + 100 * k + n, `${models[1]}-${n}`, models[1], words));
    return { url, A, B, steps: ORDERS[order](A, B) };
  });
  let k = 0;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < sides[0].steps.length; i++, k++) {
      for (const side of k % 2 ? [...sides].reverse() : sides) await turn(side.url, side.steps[i], { session, maxTokens: MAX_TOKENS });
    }
  }
  return sides.map((side) => [...side.A, ...side.B]);
}

// The prediction and engine argv of `model` of `files` loaded alone.
async function probe(files, config, model) {
  const zest = await startZest({ home: makeHome(files, { config }), env: ZEST_ENV });
  try {
    const i = await loaded(zest, model);
    return { predicted: i.placement.predicted_total_bytes, argv: engineArgv(i.pid) };
  } finally { await zest.stop(); zest.cleanup(); }
}

// Row 4: a chat front-end's conversations (no session field) across swaps,
// default settings but 2 slots, models sized like a user's in KV.
async function frontEndRow() {
  const files = { fa: modelFile('fa', 21, USER_SHAPE), fb: modelFile('fb', 22, USER_SHAPE) };
  const config = `[models."fa"]\nparallel = ${SLOTS}\n[models."fb"]\nparallel = ${SLOTS}\n`;
  const { predicted, argv } = await probe(files, config, 'fa');
  const limit = Math.round(predicted * 1.5);
  const zest = await startZest({ home: makeHome(files, { config }), env: { ...ZEST_ENV, ZEST_MEMORY_LIMIT: String(limit) } });
  let router;
  try {
    router = await startRouter(argv, { modelsDir, modelsMax: 1, parallel: SLOTS, ctx: CTX, extra: ['-t', '1'] });
    const [z, r] = await swapRuns('alternation', FRONT_ROUNDS, [zest.url, router.url],
      { models: ['fa', 'fb'], session: false, words: FRONT_WORDS });
    const written = (zest.logs().match(/were written behind|more written behind/g) ?? []).length;
    return { predicted, limit, zest: z, router: r, loads: [(zest.logs().match(/\bloading '/g) ?? []).length, router.loads()],
      stopsWrittenBehind: written, evictions: (zest.logs().match(/evicting idle/g) ?? []).length };
  } finally {
    await router?.stop();
    await zest.stop();
    zest.cleanup();
  }
}

// Row 3: zest and the router, each order on fresh servers.
async function swapRow() {
  const files = { a: modelFile('a', 11), b: modelFile('b', 12) };
  // Each engine's cache at 16 MiB (two of these conversations beside its
  // two slots): its default (four KV caches, within a quarter of the free
  // RAM) would be cut to what the memory limit leaves, smaller for the
  // second model than the first.
  const config = modelConfig(['a', 'b'], `cache_ram = ${SWAP_CACHE_MIB}\n`);
  const { predicted, argv } = await probe(files, config, 'a');
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

const watch = watchMachine();
const out = {};
if (ROWS.has('ledger')) {
  const ledgerFile = modelFile('m', 7, USER_SHAPE);
  out.ledger = await ledgerRun(ledgerFile, { seed: 100, direct: true });
  say(`ledger: RSS ${mib(out.ledger.rss).toFixed(1)} MiB, predicted ${mib(out.ledger.predicted).toFixed(1)} MiB`);
  out.drift = await ledgerRun(ledgerFile, { seed: 200, cacheRam: ENGINE_DEFAULT_CACHE_MIB });
  say(`ledger, cache_ram ${ENGINE_DEFAULT_CACHE_MIB}: RSS ${mib(out.drift.rss).toFixed(1)} MiB, predicted ${mib(out.drift.predicted).toFixed(1)} MiB`);
}
if (ROWS.has('nodes')) out.nodes = await nodesRow(modelFile('n', 8));
if (ROWS.has('swap')) out.swap = await swapRow();
if (ROWS.has('frontend')) {
  out.front = await frontEndRow();
  say('swap: a chat front-end');
}
const seen = watch.stop();

// The table.
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const rowsOut = [];
const current = [];
const row = (...cells) => rowsOut.push(`| ${cells.join(' | ')} |`);
// Per warm round r (1..), the median TTFT of that round's turns.
const roundMedians = (convs, rounds) => Array.from({ length: rounds - 1 }, (_, r) => median(convs.map((c) => c.turns[r + 1].ttft)));
const baselines = {};
const notes = [];
const { ledger, drift, nodes, swap, front } = out;
if (ledger) {
  const ratio = ledger.rss / ledger.predicted;
  row('Ledger (no session, default settings, 8 KiB KV/token)', `engine RSS after the trace / \`zest ps\` PREDICTED (ceiling ${ledger.cacheRam} MiB, held ${f(mib(ledger.promptCache), 1)}), MiB`,
    `${f(mib(ledger.rss), 1)} / ${f(mib(ledger.predicted), 1)}`, '', f(ratio), '0.8 – 1.1');
  current.push({ measure: 'Ledger: engine RSS / predicted after 8 conversations × 4 turns (no session, default settings)', value: f(ratio), target: '0.8 – 1.1' });
  row('Ledger', 'peak engine RSS during the trace (after each turn) / PREDICTED, MiB',
    `${f(mib(ledger.peak), 1)} / ${f(mib(ledger.predicted), 1)}`, '', f(ledger.peak / ledger.predicted), '≤ 1.1');
  row(`Ledger, cache_ram ${ENGINE_DEFAULT_CACHE_MIB} (llama-server's own default)`, `engine RSS after the trace / PREDICTED (held ${f(mib(drift.promptCache), 1)}), MiB`,
    `${f(mib(drift.rss), 1)} / ${f(mib(drift.predicted), 1)}`, '', f(drift.rss / drift.predicted), '0.8 – 1.1');
  row('Ledger', 'warm turns from the cache; tokens processed / prompt (default ceiling | 8192)',
    `${hits(warmTurns(ledger.convs))}/${warmTurns(ledger.convs).length}; ${f(processedShare(warmTurns(ledger.convs)))}`,
    `${hits(warmTurns(drift.convs))}/${warmTurns(drift.convs).length}; ${f(processedShare(warmTurns(drift.convs)))}`, '', '');
  const firstRatio = median(ledger.first.zest) / median(ledger.first.direct);
  row('First turns', `TTFT, median ms (zest | direct llama-server, zest's argv), ${CONVERSATIONS} each`,
    f(median(ledger.first.zest), 0), f(median(ledger.first.direct), 0), f(firstRatio), '≤ 1.05');
  current.push({ measure: 'First turns: TTFT zest / direct llama-server', value: f(firstRatio), target: '≤ 1.05' });
  notes.push(`- Ledger RSS: at load ${f(mib(ledger.rssAtLoad), 1)} MiB, peak ${f(mib(ledger.peak), 1)} MiB, after ${f(mib(ledger.rss), 1)} MiB (default ceiling); ` +
    `at load ${f(mib(drift.rssAtLoad), 1)} MiB, peak ${f(mib(drift.peak), 1)} MiB, after ${f(mib(drift.rss), 1)} MiB (cache_ram ${ENGINE_DEFAULT_CACHE_MIB})`,
  `- First-turn TTFT: zest ${everyRun(ledger.first.zest, 0)}; direct ${everyRun(ledger.first.direct, 0)}`);
}
if (nodes) {
  const served = nodes.perNode.map((n) => n.miss);
  row('Nodes (named sessions, 2 KiB KV/token)', 'conversations per node (each node\'s session misses: a conversation\'s first turn there)',
    served.join(' + '), '', '', 'both serve');
  row('Nodes', 'conversations that moved between turns (misses beyond one a conversation)',
    String(served.reduce((a, b) => a + b, 0) - CONVERSATIONS), '', '', '0');
  row('Nodes', 'warm-turn tokens processed / prompt (two nodes | one node)', f(processedShare(warmTurns(nodes.pair))),
    f(processedShare(warmTurns(nodes.solo))), '', '≤ 0.2');
  const tps = (convs, sec) => convs.length * NODE_TURNS / sec;
  row('Nodes', `turns/s, ${CONVERSATIONS} conversations at once (two nodes | one node)`, f(tps(nodes.pair, nodes.pairSeconds)),
    f(tps(nodes.solo, nodes.soloSeconds)), f(tps(nodes.pair, nodes.pairSeconds) / tps(nodes.solo, nodes.soloSeconds)), '');
  notes.push(`- Nodes, per node (hit/miss/fallback): ${nodes.perNode.map((n) => `${n.hit}/${n.miss}/${n.fallback}`).join(', ')}; ` +
    `seconds: two nodes ${f(nodes.pairSeconds, 1)}, one node ${f(nodes.soloSeconds, 1)}`);
}
if (swap) {
  for (const order of ['rounds', 'alternation']) {
    const z = warmTurns(swap[`zest ${order}`].convs);
    const r = warmTurns(swap[`router ${order}`].convs);
    const rounds = order === 'rounds' ? SWAP_ROUNDS : ALT_ROUNDS;
    const label = `Swap, agents (named sessions, cache_ram ${SWAP_CACHE_MIB}, 2 KiB KV/token), ${order === 'rounds' ? 'model by model' : 'strict alternation'} (${rounds} rounds)`;
    row(label, 'warm-turn TTFT, median ms (zest | router)', f(median(z.map((t) => t.ttft)), 0), f(median(r.map((t) => t.ttft)), 0),
      f(median(z.map((t) => t.ttft)) / median(r.map((t) => t.ttft))), order === 'rounds' ? '≤ 0.3' : 'reported');
    row(label, 'warm turns from the cache; tokens processed / prompt', `${hits(z)}/${z.length}; ${f(processedShare(z))}`,
      `${hits(r)}/${r.length}; ${f(processedShare(r))}`, '', order === 'rounds' ? '≤ 0.2' : 'reported');
    row(label, 'model loads', String(swap[`zest ${order}`].loads), String(swap[`router ${order}`].loads), '', '');
    baselines[`router, agents ${order}`] = roundMedians(swap[`router ${order}`].convs, rounds);
    for (const who of ['zest', 'router']) {
      notes.push(`- Swap ${order}, ${who}, TTFT by conversation then turn: ${swap[`${who} ${order}`].convs.map((c) => `${c.name} ${c.turns.map((t) => t.ttft.toFixed(0)).join('/')}`).join('; ')}`);
    }
  }
}
if (front) {
  const z = warmTurns(front.zest);
  const r = warmTurns(front.router);
  const label = `Swap, a chat front-end (no session, default settings, 8 KiB KV/token, budget 1.5 models), strict alternation (${FRONT_ROUNDS} rounds)`;
  const med = median(z.map((t) => t.ttft)) / median(r.map((t) => t.ttft));
  const p90 = quantile(z.map((t) => t.ttft), 0.9) / quantile(r.map((t) => t.ttft), 0.9);
  const zr = roundMedians(front.zest, FRONT_ROUNDS);
  const rr = roundMedians(front.router, FRONT_ROUNDS);
  const perRound = zr.map((v, i) => v / rr[i]);
  row(label, 'warm-turn TTFT, median ms (zest | router)', f(median(z.map((t) => t.ttft)), 0), f(median(r.map((t) => t.ttft)), 0), f(med), '≤ 0.3');
  row(label, 'warm-turn TTFT, p90 ms (zest | router)', f(quantile(z.map((t) => t.ttft), 0.9), 0), f(quantile(r.map((t) => t.ttft), 0.9), 0), f(p90), '≤ 1.0');
  row(label, `median ratio by warm round (${perRound.length} rounds)`, perRound.map((x) => f(x)).join(', '), '', `${f(Math.min(...perRound))} – ${f(Math.max(...perRound))}`, '');
  row(label, 'warm turns from the cache; tokens processed / prompt', `${hits(z)}/${z.length}; ${f(processedShare(z))}`,
    `${hits(r)}/${r.length}; ${f(processedShare(r))}`, '', '≤ 0.2');
  row(label, 'model loads; zest\'s stops that found their conversations written behind (of its evictions)',
    `${front.loads[0]}; ${front.stopsWrittenBehind} of ${front.evictions}`, String(front.loads[1]), '', '');
  current.push({ measure: 'Chat front-end across swaps: warm TTFT median zest / router', value: f(med), target: '≤ 0.3' },
    { measure: 'Chat front-end across swaps: warm TTFT p90 zest / router', value: f(p90), target: '≤ 1.0' },
    { measure: 'Chat front-end across swaps: warm-turn prompt share read again', value: f(processedShare(z)), target: '≤ 0.2' });
  baselines['router, front-end'] = rr;
  for (const [who, convs] of [['zest', front.zest], ['router', front.router]]) {
    notes.push(`- Front-end swap, ${who}, TTFT by conversation then turn: ${convs.map((c) => `${c.name} ${c.turns.map((t) => t.ttft.toFixed(0)).join('/')}`).join('; ')}`);
  }
}

const v = verdict(seen, baselines);
const lines = [
  `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — conversations and the prompt cache: ${machine()} — commit ${commit()}`,
  '',
  `Models: zest-make-model ${SHAPE.join(' ')} (${KV_PER_TOKEN / 1024} KiB of KV a token: nodes, agents' swaps) and ${USER_SHAPE.join(' ')} ` +
    `(${USER_KV_PER_TOKEN / 1024} KiB a token: ledger, first turns, the chat front-end). ${SLOTS} slots of ${CTX} tokens; ` +
    `openings of ${WORDS} words (${FRONT_WORDS} for the front-end), ${MAX_TOKENS}-token answers at temperature 0, streamed; ` +
    'every engine on one thread (zest: engine.threads = 1; router and direct: -t 1). Tokens processed = prompt_tokens − ' +
    'usage.prompt_tokens_details.cached_tokens, from the engine; "from the cache" = at least half the prompt cached. ' +
    (ledger ? `Ledger: ${CONVERSATIONS} conversations × ${LEDGER_TURNS} turns, one request at a time. ` : '') +
    (nodes ? `Nodes: two zest nodes (one machine) behind HAProxy ${haproxyVersion()} with \`zest haproxy-config\`, ${CONVERSATIONS} conversations × ${NODE_TURNS} turns, all at once. ` : '') +
    (swap ? `Agents' swaps: memory limit ${f(mib(swap.limit), 1)} MiB = 1.5 × one model's prediction (${f(mib(swap.predicted), 1)} MiB). ` : '') +
    (front ? `Front-end: memory limit ${f(mib(front.limit), 1)} MiB = 1.5 × one model's prediction (${f(mib(front.predicted), 1)} MiB at load). ` : '') +
    'Router: llama-server --models-dir --models-max 1, from zest\'s engine argv. Warm turns are every turn after a conversation\'s first; their TTFT includes a model load where one was needed.',
  '',
  '| row | measure | zest | baseline | ratio | target |',
  '|---|---|---:|---:|---:|---|',
  ...rowsOut,
  '',
  'Every value, in order (ms unless said):',
  '',
  ...notes,
];
// BENCH_PC_DRY: print the table only (a trial run with smaller settings).
if (process.env.BENCH_PC_DRY) console.log([...lines, '', v.line].join('\n'));
else appendResults(['', ...lines], { verdict: v, current });
say('done');
