// CPU threads per engine when several CPU engines compute at once: the same
// 8 requests (64 tokens each) over one model or split over two, with each
// engine given `--threads` 1 or the machine's core count. It measures what a
// CPU thread budget shared by the engines would gain (ggml's worker threads
// spin at barriers, so engines that together ask for more threads than there
// are cores slow each other down). Appends a table to bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { chatBody, makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine } from './gateway_overhead.mjs';
import { appendResults } from './lib/results.mjs';

const REQUESTS = 8;
const TOKENS = 64;

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

const cores = os.cpus().length;
const rows = [];
for (const models of [1, 2]) {
  for (const threads of [...new Set([1, cores])]) {
    const tps = await run(models, threads);
    rows.push(`| ${models} | ${threads} | ${models * threads} | ${tps.toFixed(1)} |`);
    console.log(rows.at(-1));
  }
}
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
const lines = [
  `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — CPU threads per engine: ${machine()} — commit ${commit}`,
  '',
  `Synthetic bench models (--layers 6), ${REQUESTS} concurrent requests of ${TOKENS} tokens, on one model or split over two CPU engines computing at once.`,
  '',
  '| models | threads per engine | threads in all | tokens/s (sum) |',
  '|---:|---:|---:|---:|',
  ...rows,
  '',
];
appendResults(lines);
