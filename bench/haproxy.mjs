// Scale-out through HAProxy: throughput and latency of chat requests sent
// straight to one zest node, through HAProxy (the `zest haproxy-config`
// config) to that one node, and through HAProxy to two nodes with model
// affinity. Four models on the tiny synthetic preset, short answers, 8
// requests at a time. Both nodes share this machine's cores, so two nodes
// cannot be faster here: the table says what HAProxy and the hashing cost,
// not what a second machine would add. Appends a table to bench/RESULTS.md
// when the machine was quiet (bench/lib/quiet.mjs; the baseline: the node
// asked directly, its rounds).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine, pct } from './gateway_overhead.mjs';
import { haproxyBin, haproxyVersion, startHaproxy } from './lib/haproxy.mjs';
import { everyRun } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const MODELS = ['alpha', 'beta', 'gamma', 'delta'];
const REQUESTS = Number(process.env.BENCH_HAPROXY_REQUESTS ?? 600);  // per setup
const ROUNDS = 6;
const CONCURRENCY = 8;
const MAX_TOKENS = 16;

async function chat(url, model) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: MAX_TOKENS }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, tokens: body.usage?.completion_tokens ?? 0 };
}

// One setup's rounds together: rates over the summed time, percentiles
// over every request.
function combine(runs) {
  const seconds = runs.reduce((t, r) => t + r.seconds, 0);
  const ms = runs.flatMap((r) => r.ms);
  return {
    rps: ms.length / seconds, tps: runs.reduce((n, r) => n + r.tokens, 0) / seconds,
    p50: pct(ms, 0.5), p99: pct(ms, 0.99),
  };
}

async function run(url, count) {
  const results = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) {
      const i = next++;
      results.push(await chat(url, MODELS[i % MODELS.length]));
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, ms: results.map((r) => r.ms), tokens: results.reduce((n, r) => n + r.tokens, 0) };
}

async function main() {
  if (!haproxyBin) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const watch = watchMachine();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-haproxy-'));
  const home = () => makeHome(Object.fromEntries(MODELS.map((m) => [m, 'tiny'])));
  const env = { ZEST_LOG_LEVEL: 'info' };
  const nodes = [await startZest({ home: home(), env }), await startZest({ home: home(), env })];
  const setups = [];
  const haproxies = [];
  try {
    setups.push({ label: 'one node, direct', url: nodes[0].url });
    haproxies.push(await startHaproxy(dir, nodes.slice(0, 1)));
    setups.push({ label: 'HAProxy, one node', url: haproxies[0].url });
    haproxies.push(await startHaproxy(dir, nodes));
    setups.push({ label: 'HAProxy, two nodes (model affinity)', url: haproxies[1].url });
    // Warm: every model loaded where it will run.
    for (const setup of setups) await run(setup.url, MODELS.length * 4);
    // Rounds in rotated order, so neither drift nor warm-up favours one setup.
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < setups.length; k++) {
        const setup = setups[(round + k) % setups.length];
        (setup.runs ??= []).push(await run(setup.url, REQUESTS / ROUNDS));
      }
    }
  } finally {
    for (const h of haproxies) await h.stop();
    for (const z of nodes) { await z.stop(); z.cleanup(); }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const seen = watch.stop();
  const rows = setups.map((setup) => [setup.label, combine(setup.runs)]);
  const base = rows[0][1];
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — Scale-out through HAProxy: ${machine()} — commit ${commit}`,
    '',
    `Model: synthetic tiny preset as ${MODELS.length} models; ${REQUESTS} chat requests per setup of up to ${MAX_TOKENS} tokens, ${CONCURRENCY} at a time, ` +
      `models in turn, in ${ROUNDS} rounds of rotated order; HAProxy ${haproxyVersion()} with the \`zest haproxy-config\` config. ` +
      'Both nodes run on this machine\'s 2 cores, so a second node adds no compute here.',
    '',
    '| setup | requests/s | tokens/s | p50 (ms) | p99 (ms) | requests/s vs direct | p99 vs direct |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(([label, r]) => `| ${label} | ${r.rps.toFixed(1)} | ${r.tps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ` +
      `${(r.rps / base.rps).toFixed(3)} | ${(r.p99 / base.p99).toFixed(3)} |`),
    '',
    'Every round\'s requests/s, in order:', '',
    ...setups.map((s) => `- ${s.label}: ${everyRun(s.runs.map((r) => r.ms.length / r.seconds))}`),
  ];
  const rps = (r) => r.ms.length / r.seconds;
  const [, one] = rows[1];
  const [, two] = rows[2];
  appendResults(lines, {
    verdict: verdict(seen, { 'one node, direct, requests/s': setups[0].runs.map(rps) }),
    current: [
      { measure: 'HAProxy, one node: requests/s vs the node direct', value: (one.rps / base.rps).toFixed(3), target: '' },
      { measure: 'HAProxy, one node: p99 vs the node direct', value: (one.p99 / base.p99).toFixed(3), target: '' },
      { measure: 'HAProxy, two nodes on one machine: requests/s vs one node direct', value: (two.rps / base.rps).toFixed(3), target: '' },
    ],
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
