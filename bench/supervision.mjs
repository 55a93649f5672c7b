// Supervision under a kill storm (issue 14): two models at 16 concurrent
// chat requests (half streamed) while a random engine is SIGKILLed every
// 0.8-2 s, with zest's DEFAULT settings (crash-loop breaker on). Success
// rate overall and by streamed / not, errors by kind, kills, and how many
// engines were started. Target: >= 95 % of requests succeed.
//
// A second run with a truly doomed model (an engine that exits at once on
// every start) checks that it is still refused fast, with its reason.
// Appends both tables to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; there is no baseline to compare: the load, the
// other processes and the steal decide).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chaosRun, chatRequest, countKinds } from '../tests/lib/chaos.mjs';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine } from './gateway_overhead.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const REQUESTS = Number(process.env.BENCH_KILL_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_KILL_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_KILL_ROUNDS ?? 3);

const rate = (n, d) => (d ? `${(100 * n / d).toFixed(1)} %` : '-');

async function killStorm() {
  const zest = await startZest({ home: makeHome({ a: 'tiny', b: 'tiny' }), env: { ZEST_LOG_LEVEL: 'info' } });
  try {
    const warm = await Promise.all(['a', 'b'].map((model) => chatRequest(zest.url, false, { model, stream: false, maxTokens: 4 })));
    if (!warm.every((r) => r.kind === 'ok')) throw new Error(`warm-up failed: ${JSON.stringify(warm)}`);
    const run = await chaosRun(zest, { models: ['a', 'b'], requests: REQUESTS, concurrency: CONCURRENCY,
                                       killEveryMs: [800, 2000], maxTokens: [128, 512] });
    const starts = (zest.logs().match(/loading '[ab]' \(pid/g) ?? []).length;
    const resumed = (zest.logs().match(/resuming it on a fresh engine/g) ?? []).length;
    const retried = (zest.logs().match(/broke off before answering, trying a fresh one/g) ?? []).length;
    return { ...run, starts, resumed, retried };
  } finally { await zest.stop(); zest.cleanup(); }
}

// A model whose engine exits at once on every start (an allowed flag with a
// value llama-server refuses): how long the first and the later requests take.
async function doomed() {
  const home = makeHome({ bad: 'tiny' });
  fs.writeFileSync(path.join(home, 'config.toml'), '[models."bad"]\nextra_args = ["--chat-template-kwargs", "not json"]\n');
  const zest = await startZest({ home });
  try {
    const times = [];
    for (let i = 0; i < 10; ++i) {
      const r = await chatRequest(zest.url, false, { model: 'bad', stream: false, maxTokens: 4 });
      times.push({ ms: r.end - r.start, kind: r.kind, detail: r.detail ?? '' });
    }
    const starts = (zest.logs().match(/loading 'bad' \(pid/g) ?? []).length;
    return { times, starts };
  } finally { await zest.stop(); zest.cleanup(); }
}

async function main() {
  const watch = watchMachine();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — supervision under a kill storm: ${machine()} — commit ${commit}`, '',
    `Two synthetic models, ${CONCURRENCY} concurrent chat requests (half streamed, 128-512 tokens), a random engine SIGKILLed every 0.8-2 s, default settings.`, '',
    '| round | requests | kills | engines started | retried before a byte | streams resumed | ok | ok, not streamed | ok, streamed | errors by kind |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  const okShares = [];
  for (let round = 1; round <= ROUNDS; ++round) {
    const run = await killStorm();
    const ok = (rs) => rs.filter((r) => r.kind === 'ok').length;
    okShares.push(run.results.length ? ok(run.results) / run.results.length : 0);
    const plain = run.results.filter((r) => !r.stream);
    const streamed = run.results.filter((r) => r.stream);
    const kinds = countKinds(run.results.filter((r) => r.kind !== 'ok'));
    const row = `| ${round} | ${run.results.length} | ${run.kills.length} | ${run.starts} | ${run.retried} | ${run.resumed} | ` +
      `${rate(ok(run.results), run.results.length)} | ` +
      `${rate(ok(plain), plain.length)} | ${rate(ok(streamed), streamed.length)} | ${JSON.stringify(kinds)} |`;
    console.log(row);
    const details = new Set(run.results.filter((r) => r.kind !== 'ok').map((r) => `${r.kind}: ${r.detail}`));
    for (const d of [...details].slice(0, 8)) console.log(`  ${d.slice(0, 300)}`);
    lines.push(row);
  }
  const bad = await doomed();
  lines.push('', 'A doomed model (its engine exits at once on every start), 10 requests one after another:', '',
    '| request | ms | outcome |', '|---:|---:|---|');
  bad.times.forEach((t, i) => lines.push(`| ${i + 1} | ${t.ms.toFixed(0)} | ${t.kind}: ${t.detail.slice(0, 120).replaceAll('|', '/')} |`));
  lines.push('', `Engines started for it: ${bad.starts}.`);
  const seen = watch.stop();
  appendResults(lines, {
    verdict: verdict(seen),
    current: [
      { measure: 'supervision: requests answered under a kill every 0.8-2 s, the worst round', value: `${(100 * Math.min(...okShares)).toFixed(1)} %`, target: '≥ 95 %' },
      { measure: 'supervision: a doomed model refused, the slowest of requests 2-10 (ms)', value: Math.max(...bad.times.slice(1).map((t) => t.ms)).toFixed(0), target: '' },
    ],
  });
}

main().catch((err) => { console.error(err); process.exit(1); });
