// Mixed-trace replay: zest vs llama-server's own router mode on the same
// three models with memory for two. Bursts of interactive high-priority
// chats arrive over a flood of low-priority background jobs; we measure the
// makespan, how many times a model was loaded, and time to first token per
// priority class. Appends a table to bench/RESULTS.md when the machine was
// quiet (bench/lib/quiet.mjs; the baseline: the router's rounds, their
// makespan and high-priority p99 TTFT).
//
// Both servers get the same engine build (zest's own argv is reused for the
// router), the same slots per model (--parallel) and the same context per
// slot. The router is `llama-server --models-dir DIR --models-max 2`; it has
// no priorities, so the X-Priority header zest reads means nothing to it.
// zest's memory budget (placement.memory_limit) is set to 2.5× the memory it
// predicts for one model, so two fit and three do not.
//
// Usage: node bench/trace_replay.mjs [--jobs N] [--chats N] [--gap-ms N] [--rounds N (3)]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { startRouter } from './lib/router.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const JOBS = arg('--jobs', 18);        // low-priority background requests, all at t=0
const CHATS = arg('--chats', 12);      // high-priority interactive requests
const GAP_MS = arg('--gap-ms', 1500);  // between interactive requests
const PARALLEL = 2;
const CTX_PER_SLOT = 1024;
const MODELS = ['m1', 'm2', 'm3'];
const REQUEST_TIMEOUT_MS = 180_000;
const ROUNDS = arg('--rounds', 3);
const MODEL_ARGS = ['--preset', 'bench', '--layers', '6'];

const watch = watchMachine();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-trace-'));
const modelsDir = path.join(work, 'models');
fs.mkdirSync(modelsDir);
for (const [i, m] of MODELS.entries()) {
  execFileSync(path.join(repo, 'build/zest-make-model'),
    [...MODEL_ARGS, '--seed', String(i + 1), '--out', path.join(modelsDir, `${m}.gguf`)]);
}

// The trace: every job and chat with its model, priority, start offset and length.
function trace() {
  const out = [];
  for (let i = 0; i < JOBS; ++i) {
    out.push({ model: MODELS[(i + 1) % 3], priority: 'low', at: 0, max_tokens: 48 });
  }
  for (let i = 0; i < CHATS; ++i) {
    out.push({ model: MODELS[i % 3], priority: 'high', at: 500 + i * GAP_MS, max_tokens: 16 });
  }
  return out;
}

// One streamed request; resolves with its time to first token and end, in ms from t0.
async function send(url, req, t0) {
  await new Promise((r) => setTimeout(r, Math.max(0, req.at - (performance.now() - t0))));
  const start = performance.now();
  // A server that stops answering fails the request instead of hanging the run.
  let ttft = null;
  let text = '';
  let status = 0;
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { 'content-type': 'application/json', 'X-Priority': req.priority },
      body: JSON.stringify({
        model: req.model, stream: true, max_tokens: req.max_tokens, ignore_eos: true,
        messages: [{ role: 'user', content: `request for ${req.model}: tell me something` }],
      }),
    });
    status = res.status;
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      text += decoder.decode(chunk, { stream: true });
      if (ttft === null && /"content":"[^"]/.test(text)) ttft = performance.now() - start;
    }
  } catch (e) {
    console.error(`${req.priority} request for ${req.model} at ${req.at} ms failed: ${e.message}`);
  }
  const ok = status === 200 && text.includes('[DONE]');
  return { ...req, ok, ttft, end: performance.now() - t0 };
}

async function replay(url) {
  const t0 = performance.now();
  const results = await Promise.all(trace().map((req) => send(url, req, t0)));
  return { results, makespan: Math.max(...results.map((r) => r.end)) / 1000 };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

function summary(name, run, loads) {
  const by = (p) => run.results.filter((r) => r.priority === p && r.ok).map((r) => r.ttft);
  const failed = run.results.filter((r) => !r.ok).length;
  return { name, makespan: run.makespan, loads, failed,
    high50: pct(by('high'), 50), high99: pct(by('high'), 99), low50: pct(by('low'), 50), low99: pct(by('low'), 99) };
}

// zest: calibrate the budget from its own prediction, then replay.
async function runZest() {
  const home = makeHome(Object.fromEntries(MODELS.map((m) => [m, path.join(modelsDir, `${m}.gguf`)])));
  const args = ['--parallel', String(PARALLEL), '--ctx-size', String(CTX_PER_SLOT)];
  let probe = await startZest({ home, args });
  let predicted = 0;
  let engineArgv;
  try {
    const load = await probe.json('/api/v1/load', { model: 'm1' });
    if (load.status !== 200) throw new Error(JSON.stringify(load.data));
    const inst = (await probe.instances()).find((i) => i.model === 'm1');
    predicted = inst?.placement?.predicted_total_bytes ?? 0;
    engineArgv = fs.readFileSync(`/proc/${inst.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } finally { await probe.stop(); }
  const env = predicted ? { ZEST_MEMORY_LIMIT: String(Math.round(predicted * 2.5)) } : {};
  const zest = await startZest({ home, args, env });
  try {
    const run = await replay(zest.url);
    const loads = (zest.logs().match(/loading '/g) ?? []).length;
    return { run, loads, predicted, engineArgv };
  } finally { await zest.stop(); zest.cleanup(); }
}

// The router, started from zest's engine argv (bench/lib/router.mjs).
async function runRouter(engineArgv) {
  const router = await startRouter(engineArgv, { modelsDir, modelsMax: 2, parallel: PARALLEL, ctx: CTX_PER_SLOT });
  try {
    const run = await replay(router.url);
    return { run, loads: router.loads() };
  } finally {
    await router.stop();
  }
}

// Alternating rounds: this machine is shared and a single run is noisy.
const zestRuns = [];
const routerRuns = [];
let predicted = 0;
for (let round = 1; round <= ROUNDS; ++round) {
  const z = await runZest();
  predicted = z.predicted;
  zestRuns.push(summary('zest', z.run, z.loads));
  console.error(`round ${round}: zest makespan ${z.run.makespan.toFixed(1)} s`);
  const r = await runRouter(z.engineArgv);
  routerRuns.push(summary('llama-server router', r.run, r.loads));
  console.error(`round ${round}: router makespan ${r.run.makespan.toFixed(1)} s`);
}
fs.rmSync(work, { recursive: true, force: true });
const seen = watch.stop();

const median = (xs) => pct(xs, 50);
const rows = zestRuns.flatMap((zr, i) => [zr, routerRuns[i]]);
const ms = (x) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'cpu';
const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD']).toString().trim();
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const ratio = (key) => (median(zestRuns.map((x) => x[key])) / median(routerRuns.map((x) => x[key]))).toFixed(2);
const table = `## ${date} UTC — mixed trace vs router mode: ${os.hostname()}: ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB — commit ${commit}

Three synthetic models (${MODEL_ARGS.join(' ')}), memory for two (router: --models-max 2; zest: placement.memory_limit = 2.5 × its prediction of ${(predicted / 2 ** 20).toFixed(0)} MiB per model), --parallel ${PARALLEL}, ${CTX_PER_SLOT} tokens per slot. Trace: ${JOBS} low-priority jobs (48 tokens) at t=0 over two models, ${CHATS} high-priority chats (16 tokens) every ${GAP_MS} ms cycling over all three. Streamed; TTFT in ms. ${ROUNDS} rounds, zest and router alternating; the ratios compare medians over the rounds.

| server | makespan s | model loads | failed | high p50 | high p99 | low p50 | low p99 |
|---|---:|---:|---:|---:|---:|---:|---:|
${rows.map((x) => `| ${x.name} | ${x.makespan.toFixed(1)} | ${x.loads} | ${x.failed} | ${ms(x.high50)} | ${ms(x.high99)} | ${ms(x.low50)} | ${ms(x.low99)} |`).join('\n')}

Ratios zest/router: high-priority p99 TTFT ${ratio('high99')} (target ≤ 0.5), makespan ${ratio('makespan')} (target ≤ 0.8).`;
appendResults(table.split('\n'), {
  verdict: verdict(seen, {
    'router makespan': routerRuns.map((x) => x.makespan),
    'router high-priority p99 TTFT': routerRuns.map((x) => x.high99).filter(Number.isFinite),
  }),
  current: [
    { measure: 'mixed trace: high-priority p99 TTFT, zest / llama-server router', value: ratio('high99'), target: '≤ 0.5' },
    { measure: 'mixed trace: makespan, zest / llama-server router', value: ratio('makespan'), target: '≤ 0.8' },
  ],
});
