// CPU threads per engine when several CPU engines compute at once: the same
// 8 requests (64 tokens each) over one model or split over two, with each
// engine given `--threads` 1 or the machine's core count. It measures what a
// CPU thread budget shared by the engines would gain (ggml's worker threads
// spin at barriers, so engines that together ask for more threads than there
// are cores slow each other down). BENCH_THREADS_ROUNDS (3): rounds over
// the four setups in turn; the table gives each setup's median and every
// round. Appends a table to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; the baseline: one engine alone, its rounds).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { chatBody, makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine } from './gateway_overhead.mjs';
import { everyRun, median } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const REQUESTS = 8;
const TOKENS = 64;
const ROUNDS = Number(process.env.BENCH_THREADS_ROUNDS ?? 3);

async function run(models, threads) {
  const spec = {};
  for (let i = 1; i <= models; ++i) spec[`m${i}`] = { preset: 'bench', args: ['--layers', '6', '--seed', String(i)] };
  const zest = await startZest({
    home: makeHome(spec),
    args: ['--parallel', String(REQUESTS / models), '--ctx-size', '1024', '--threads', String(threads)],
    env: { ZEST_LOG_LEVEL: 'info' },
  });
  try {
    for (let i = 1; i <= models; ++i) {
      const r = await zest.json('/api/v1/load', { model: `m${i}` });
      if (r.status !== 200) throw new Error(JSON.stringify(r.data));
    }
    const started = Date.now();
    let tokens = 0;
    const jobs = [];
    for (let j = 0; j < REQUESTS; ++j) {
      jobs.push(zest.json('/v1/chat/completions',
        chatBody(`m${1 + (j % models)}`, { max_tokens: TOKENS, ignore_eos: true }))
        .then((r) => { tokens += r.data.usage?.completion_tokens ?? 0; }));
    }
    await Promise.all(jobs);
    return tokens / ((Date.now() - started) / 1000);
  } finally { await zest.stop(); zest.cleanup(); }
}

const watch = watchMachine();
const cores = os.cpus().length;
const setups = [];
for (const models of [1, 2]) for (const threads of [...new Set([1, cores])]) setups.push({ models, threads, tps: [] });
// Rounds over the setups in turn, so drift spreads over all of them.
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of setups) {
    setup.tps.push(await run(setup.models, setup.threads));
    console.log(`round ${round + 1}: ${setup.models} model(s), ${setup.threads} thread(s) each: ${setup.tps.at(-1).toFixed(1)} tokens/s`);
  }
}
const seen = watch.stop();
const rows = setups.map(({ models, threads, tps }) =>
  `| ${models} | ${threads} | ${models * threads} | ${median(tps).toFixed(1)} | ${everyRun(tps)} |`);
const setupOf = (models, threads) => setups.find((x) => x.models === models && x.threads === threads);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
const lines = [
  `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — CPU threads per engine: ${machine()} — commit ${commit}`,
  '',
  `Synthetic bench models (--layers 6), ${REQUESTS} concurrent requests of ${TOKENS} tokens, on one model or split over two CPU engines computing at once; ` +
    `${ROUNDS} rounds over the setups in turn.`,
  '',
  '| models | threads per engine | threads in all | tokens/s (sum), median | every round |',
  '|---:|---:|---:|---:|---|',
  ...rows,
];
appendResults(lines, {
  verdict: verdict(seen, Object.fromEntries(setups.filter((x) => x.models === 1)
    .map((x) => [`one engine, ${x.threads} thread(s)`, x.tps]))),
  current: [
    { measure: 'CPU threads: 2 CPU engines at once, 1 thread each, tokens/s (sum)', value: median(setupOf(2, 1).tps).toFixed(1), target: '' },
    ...(cores > 1 ? [{ measure: 'CPU threads: 2 CPU engines at once, every core each, tokens/s (sum)',
      value: median(setupOf(2, cores).tps).toFixed(1), target: '' }] : []),
  ],
});
