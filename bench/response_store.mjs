// The Responses API's store: each stored response is a 0600 file, written
// (with fsync) behind the request by the store's own thread (it was the
// I/O thread's, which cost a third of a one-token request here). Does
// storing cost the requests? The same
// one-token /v1/responses request with store:true and store:false,
// interleaved, one at a time and 8 at once (so a write on the I/O thread
// would delay the others), on the tiny synthetic model, where the engine is
// fast enough for zest's own work to show. Appends a table to
// bench/RESULTS.md when the machine was quiet (bench/lib/quiet.mjs; the
// baseline: store:false, its requests in three rounds of each kind).
// Target: p50 and p99 ratios (store / no store) ≤ 1.10.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine, pct } from './gateway_overhead.mjs';
import { roundMedians } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_STORE_ROUNDS ?? 300);
const CONCURRENT = 8;

async function respond(url, store) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/responses`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tiny', input: 'hello there', max_output_tokens: 1, store }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return performance.now() - t0;
}

async function main() {
  const watch = watchMachine();
  const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { ZEST_LOG_LEVEL: 'info' } });
  const serial = { true: [], false: [] };
  const concurrent = { true: [], false: [] };
  let files = 0;
  try {
    for (const store of [true, false]) await respond(zest.url, store);  // load and warm
    for (let i = 0; i < ROUNDS; i++) {
      for (const store of i % 2 ? [true, false] : [false, true]) serial[store].push(await respond(zest.url, store));
    }
    for (let i = 0; i < ROUNDS / 10; i++) {
      for (const store of i % 2 ? [true, false] : [false, true]) {
        const times = await Promise.all(Array.from({ length: CONCURRENT }, () => respond(zest.url, store)));
        concurrent[store].push(...times);
      }
    }
  } finally {
    await zest.stop();
    // Once zest has stopped, every write behind is done. One directory a
    // key (local/ without keys), one file a response.
    const store = path.join(zest.home, 'responses');
    if (fs.existsSync(store)) files = fs.readdirSync(store).reduce((n, key) => n + fs.readdirSync(path.join(store, key)).length, 0);
    zest.cleanup();
  }
  const seen = watch.stop();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
  const row = (label, xs) => {
    const [p50s, p50n, p99s, p99n] = [pct(xs.true, 0.5), pct(xs.false, 0.5), pct(xs.true, 0.99), pct(xs.false, 0.99)];
    return `| ${label} | ${p50s.toFixed(2)} | ${p50n.toFixed(2)} | ${(p50s / p50n).toFixed(3)} | ${p99s.toFixed(2)} | ${p99n.toFixed(2)} | ${(p99s / p99n).toFixed(3)} | ≤ 1.10 |`;
  };
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — Responses store cost: ${machine()} — commit ${commit}`,
    '',
    `Model: synthetic tiny preset; one zest; one-token /v1/responses requests, store:true and store:false interleaved: ${ROUNDS} of each one at a time, ` +
      `then ${ROUNDS / 10} rounds of ${CONCURRENT} at once per setting. ${files} responses were stored (one file each, written and fsynced behind the request by the store's thread).`,
    '',
    '| requests | p50 store (ms) | p50 no store (ms) | ratio | p99 store (ms) | p99 no store (ms) | ratio | target |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    row('one at a time', serial),
    row(`${CONCURRENT} at once`, concurrent),
  ];
  const ratio = (xs, p) => (pct(xs.true, p) / pct(xs.false, p)).toFixed(3);
  appendResults(lines, {
    verdict: verdict(seen, {
      'no store, one at a time': roundMedians(serial.false, 3),
      [`no store, ${CONCURRENT} at once`]: roundMedians(concurrent.false, 3),
    }),
    current: [
      { measure: 'Responses store: p50 store / no store, one at a time', value: ratio(serial, 0.5), target: '≤ 1.10' },
      { measure: 'Responses store: p99 store / no store, one at a time', value: ratio(serial, 0.99), target: '≤ 1.10' },
      { measure: `Responses store: p99 store / no store, ${CONCURRENT} at once`, value: ratio(concurrent, 0.99), target: '≤ 1.10' },
    ],
  });
}

await main();
