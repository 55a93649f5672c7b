// Memory prediction accuracy: for synthetic models of several shapes and
// context sizes, the placement ledger's prediction (GET /api/v1/ps,
// placement.predicted_total_bytes) against the engine's measured resident
// memory (measured_rss_bytes: VmRSS of the engine's process tree) after a
// load and one short generation. CPU only (this machine has no GPU), so the
// engine's device memory is its RSS. Beside it, the buffers the engine says
// it allocated (its log's "… buffer size" lines): RSS counts only the pages
// touched, so a buffer reserved but not yet written shows there and not in
// the RSS.
//
// Two of the shapes set constants of the ledger (commit 534140f): `tiny`
// measured the engine's own memory (kEngineOverheadBytes = 24 MiB), and
// `bench-0.5B` showed the AMX repack copy of CPU weights (cpu_repack; it
// applies only on CPUs with amx_int8). Their error says how well the fit
// holds, not how well the ledger predicts; the others are held out, and the
// tables keep the two apart. Do not retune the constants to the held-out
// shapes: that would un-hold them.
//
// Each shape is loaded BENCH_PLACEMENT_ROUNDS (3) times, the shapes in turn;
// the error is against the median RSS, and every round's RSS is listed.
//
// Appends two tables to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; the baseline: each shape's measured RSS, its rounds),
// not with --only, which prints them.
// Usage: node bench/placement_accuracy.mjs [--only NAME,NAME]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chatBody, makeHome, repo, startZest, syntheticModel } from '../tests/lib/zest.mjs';
import { padVocab } from './lib/pad_vocab.mjs';
import { median } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_PLACEMENT_ROUNDS ?? 3);

const shapes = [
  { name: 'tiny', preset: 'tiny', args: [], ctx: 2048, parallel: 4,
    tuned: 'engine overhead (24 MiB) measured with it' },
  { name: 'small', preset: 'small', args: [], ctx: 4096, parallel: 4 },
  { name: 'wide-f16', preset: 'tiny',
    args: ['--layers', '8', '--embedding', '512', '--heads', '8', '--kv-heads', '2', '--ff', '1536',
           '--type', 'f16', '--context', '8192'], ctx: 8192, parallel: 1 },
  { name: 'deep-q8', preset: 'tiny',
    args: ['--layers', '16', '--embedding', '768', '--heads', '12', '--kv-heads', '4', '--ff', '2048',
           '--type', 'q8_0', '--context', '16384'], ctx: 16384, parallel: 2 },
  { name: 'bench-0.5B', preset: 'bench', args: [], ctx: 4096, parallel: 4,
    tuned: 'AMX repack of CPU weights found with it' },
  // Real vocabularies (Mistral's 32k, llama-3's 128k): a large token
  // embedding and output head, and logits in the compute buffer.
  { name: 'vocab-32k-f16', preset: 'tiny', vocab: 32000,
    args: ['--layers', '4', '--embedding', '512', '--heads', '8', '--kv-heads', '4', '--ff', '1408',
           '--type', 'f16', '--context', '4096'], ctx: 4096, parallel: 2 },
  { name: 'vocab-128k-q8', preset: 'tiny', vocab: 128256,
    args: ['--layers', '4', '--embedding', '768', '--heads', '12', '--kv-heads', '4', '--ff', '2048',
           '--type', 'q8_0', '--context', '8192'], ctx: 8192, parallel: 1 },
  // A quantized KV cache (q8_0 K and V, which needs flash attention; head
  // dim 64 = two whole 32-element blocks).
  { name: 'kv-q8_0', preset: 'tiny', kv: 'q8_0',
    args: ['--layers', '8', '--embedding', '512', '--heads', '8', '--kv-heads', '2', '--ff', '1536',
           '--type', 'f16', '--context', '16384'], ctx: 16384, parallel: 2 },
];

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : null;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-placement-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));
const mib = (b) => (b / 2 ** 20).toFixed(1);
const pct = (e) => `${e >= 0 ? '+' : ''}${e.toFixed(1)}%`;

// Written once a shape: every round loads the same file.
const files = new Map();
function modelFile(s) {
  if (!files.has(s.name)) {
    const file = syntheticModel(s.preset, s.args);
    files.set(s.name, s.vocab ? padVocab(file, path.join(work, `${s.name}.gguf`), s.vocab) : file);
  }
  return files.get(s.name);
}

// `-lv 4`: llama-server logs its buffer sizes at verbosity 4 (zest runs it at 3).
function config(s) {
  let toml = `[models."m"]\nctx_size = ${s.ctx}\nparallel = ${s.parallel}\nextra_args = ["-lv", "4"]\n`;
  if (s.kv) toml += `kv_type = "${s.kv}"\nflash_attention = true\n`;
  return toml;
}

// The engine's own account of what it allocated, in bytes by kind (model,
// KV, compute, output), from lines like
// "llama_context:        CPU compute buffer size =     2.50 MiB".
function engineBuffers(lines) {
  const last = new Map();
  for (const line of lines) {
    const m = /(\S+)\s+(model|KV|compute|output) buffer size\s*=\s*([\d.]+) MiB/.exec(line);
    if (m) last.set(`${m[1]} ${m[2]}`, { kind: m[2], bytes: Number(m[3]) * 2 ** 20 });
  }
  const sum = { model: 0, KV: 0, compute: 0, output: 0 };
  for (const { kind, bytes } of last.values()) sum[kind] += bytes;
  return { ...sum, total: sum.model + sum.KV + sum.compute + sum.output, seen: last.size > 0 };
}

async function measure(s) {
  const file = modelFile(s);
  const home = makeHome({ m: file });
  fs.writeFileSync(path.join(home, 'config.toml'), config(s));
  const zest = await startZest({ home });
  try {
    const r = await zest.json('/v1/chat/completions', chatBody('m', { max_tokens: 8 }));
    if (r.status !== 200) throw new Error(`${s.name}: ${JSON.stringify(r.data)}`);
    const ps = (await zest.json('/api/v1/ps')).data.instances[0];
    const logs = (await zest.json('/api/v1/logs?n=5000&model=m')).data.lines ?? [];
    const predicted = ps.placement.predicted_total_bytes;
    const measured = ps.measured_rss_bytes;
    const engine = engineBuffers(logs);
    const row = { ...s, size: fs.statSync(file).size, predicted, measured, engine,
                  kvType: ps.placement.kv_type ?? `${ps.placement.cache_type_k}/${ps.placement.cache_type_v}`,
                  cpu: ps.placement.predicted_bytes.CPU, error: (predicted - measured) / measured * 100 };
    console.log(`${s.name}: predicted ${mib(predicted)} MiB, measured RSS ${mib(measured)} MiB ` +
                `(${pct(row.error)}), engine's buffers ${mib(engine.total)} MiB`);
    return row;
  } finally {
    await zest.stop();
    zest.cleanup();
  }
}

const watch = watchMachine();
const chosen = shapes.filter((s) => !only || only.includes(s.name));
const byShape = new Map(chosen.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) for (const s of chosen) byShape.get(s.name).push(await measure(s));
const seen = watch.stop();
// One row a shape: the first round's plan and engine buffers (the same
// every round), the median of the rounds' RSS.
const rows = chosen.map((s) => {
  const runs = byShape.get(s.name);
  const measured = median(runs.map((r) => r.measured));
  return { ...runs[0], measured, rounds: runs.map((r) => r.measured), error: (runs[0].predicted - measured) / measured * 100 };
});

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
const cpuName = (cpuinfo.match(/model name\s*:\s*(.*)/) ?? [])[1];
const amx = /\bamx_int8\b/.test(cpuinfo);
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const header = '| model | file MiB | vocab | ctx × slots | KV type | weights | KV | compute | overhead | predicted MiB | ' +
  'measured RSS MiB | error | engine\'s buffers MiB (model / KV / compute) |\n' +
  '|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n';
const line = (r) => `| ${r.name} | ${mib(r.size)} | ${r.vocab ?? 'synthetic (~530)'} | ${r.ctx} × ${r.parallel} | ` +
  `${r.kvType} | ${mib(r.cpu.weights)} | ${mib(r.cpu.kv_cache)} | ${mib(r.cpu.compute)} | ${mib(r.cpu.overhead)} | ` +
  `${mib(r.predicted)} | ${mib(r.measured)} | ${pct(r.error)} | ` +
  (r.engine.seen ? `${mib(r.engine.total)} (${mib(r.engine.model)} / ${mib(r.engine.KV)} / ${mib(r.engine.compute)})` : 'not in its log') +
  ' |\n';
const summary = (list) => list.length === 0 ? 'none run' :
  `${list.map((r) => `${r.name} ${pct(r.error)}`).join(', ')}; largest |error| ` +
  `${Math.max(...list.map((r) => Math.abs(r.error))).toFixed(1)}%`;
const tuned = rows.filter((r) => r.tuned);
const held = rows.filter((r) => !r.tuned);

let md = `\n## ${date} UTC — memory prediction accuracy — ${os.hostname()}: ${cpuName}, ` +
  `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB — commit ${commit}\n\n` +
  'Synthetic models on the CPU (llama-server in the rootfs, mmap); predicted = the ledger\'s total for ' +
  'the plan, measured = VmRSS of the engine\'s process tree after load and one 8-token chat, the median of ' +
  `${ROUNDS} loads per shape (the shapes in turn). ` + 'Engine\'s buffers: what llama-server\'s log says it allocated (the mmap\'d model, the KV ' +
  'cache, the compute and output buffers; not its code and heap); RSS counts only the pages touched. ' +
  `This CPU ${amx ? 'has' : 'has no'} AMX, so the ledger ${amx ? 'counts' : 'does not count'} the repack ` +
  'copy of CPU weights. Target: |error| ≤ 10%.\n\n' +
  '**Held out** (no constant of the ledger was fitted to them):\n\n' + header + held.map(line).join('') +
  '\n**Tuning shapes** (commit 534140f set a constant from each; their error shows the fit, not a prediction):\n\n' +
  header + tuned.map((r) => line({ ...r, name: `${r.name} (${r.tuned})` })).join('') +
  `\nHeld out: ${summary(held)}. Tuning shapes: ${summary(tuned)}.\n\n` +
  `Every round's measured RSS (MiB), in order: ${rows.map((r) => `${r.name} ${r.rounds.map(mib).join(', ')}`).join('; ')}.`;
const largest = (list) => (list.length ? `${Math.max(...list.map((r) => Math.abs(r.error))).toFixed(1)}%` : '');
if (only) console.log(md);
else {
  appendResults(md.split('\n'), {
    verdict: verdict(seen, Object.fromEntries(rows.map((r) => [`${r.name} RSS`, r.rounds]))),
    current: [
      { measure: 'memory prediction: largest |error|, held-out shapes', value: largest(held), target: '≤ 10%' },
      { measure: 'memory prediction: largest |error|, tuning shapes', value: largest(tuned), target: '≤ 10%' },
    ].filter((r) => r.value),
  });
}
