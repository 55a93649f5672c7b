// Download throughput: a file from the fake hub (tests/lib/fake_hub.mjs)
// pulled by zest with 1 and 4 connections, against `curl -o` of the same
// URL, interleaved in one run. Three scenarios:
//   - unthrottled loopback (1 GiB): the hub, the client and sha256 all
//     compete for this machine's CPUs; it measures zest's per-byte cost;
//   - a shared link of --rate-mib MiB/s (default 100, about a 1 Gbit/s home
//     connection; 256 MiB): all connections together get the link's rate,
//     as on a real network, so more connections cannot beat one that fills it;
//   - the same link behind a server that caps each connection at
//     --per-conn-mib MiB/s (default 25), as some CDNs do: there more
//     connections get more of the link, up to its rate.
// Every run's time is printed and kept in the table, beside the best.
// Appends a table to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; the baseline: curl -o's runs in each scenario).
// Usage: node bench/download.mjs [--size-mib N] [--rate-mib N] [--per-conn-mib N] [--rounds N (3)]
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startZest, makeHome, repo } from '../tests/lib/zest.mjs';
import { startFakeHub } from '../tests/lib/fake_hub.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const sizeMiB = arg('--size-mib', 1024);
const rateMiB = arg('--rate-mib', 100);
const perConnMiB = arg('--per-conn-mib', 25);
const rounds = arg('--rounds', 3);
const REPO = 'bench-org/Bench-GGUF';
const FILE = 'bench-Q4_K_M.gguf';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-dl-'));

// Random-looking content would cost minutes to write; a sparse file reads as
// zeros from the page cache, which keeps the benchmark about transfer.
function sparseFile(mib) {
  const file = path.join(work, `${mib}-${FILE}`);
  fs.closeSync(fs.openSync(file, 'w'));
  fs.truncateSync(file, mib * 1024 * 1024);
  return file;
}

async function zestPull(hub, connections) {
  const cache = fs.mkdtempSync(path.join(work, 'cache-'));
  const zest = await startZest({ home: makeHome({}),
    env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache, ZEST_PULL_CONNECTIONS: String(connections) } });
  try {
    const t0 = process.hrtime.bigint();
    const r = await zest.json('/api/v1/pull', { model: REPO, stream: false });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 200) throw new Error(JSON.stringify(r.data));
    const phases = /transfer [\d.]+ s, verify and publish [\d.]+ s/.exec(zest.logs());
    if (phases) console.error(`zest, ${connections} connection(s): ${phases[0]} (total ${s.toFixed(2)} s)`);
    return s;
  } finally {
    await zest.stop();
    zest.cleanup();
    fs.rmSync(cache, { recursive: true, force: true });
  }
}

// Asynchronous: the fake hub runs in this process and must keep serving.
// With `durable`, curl's file is then flushed to disk (`sync -d FILE`, an
// fdatasync): the same promise zest makes before it publishes a blob.
async function curl(hub, durable = false) {
  const out = path.join(work, 'curl.out');
  const t0 = process.hrtime.bigint();
  await promisify(execFile)('curl', ['-sSfL', '-o', out, `${hub.url}/${REPO}/resolve/main/${FILE}`]);
  if (durable) await promisify(execFile)('sync', ['-d', out]);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  fs.rmSync(out);
  return s;
}

// Every run of `rounds`, interleaved, for curl and zest with 1 and 4
// connections; `throttle` is per connection, `link` shared by all.
async function scenario(label, mib, { throttle = 0, link = 0 } = {}) {
  const hub = await startFakeHub({ repos: { [REPO]: { files: { [FILE]: sparseFile(mib) } } }, throttle, link });
  const runs = { curl: [], curlSync: [], z1: [], z4: [] };
  const note = (key, s) => { runs[key].push(s); console.error(`${label}: ${key} ${s.toFixed(2)} s`); };
  try {
    for (let i = 0; i < rounds; ++i) {
      note('curl', await curl(hub));
      note('curlSync', await curl(hub, true));
      note('z1', await zestPull(hub, 1));
      note('z4', await zestPull(hub, 4));
    }
  } finally { await hub.close(); }
  return { label, mib, runs, best: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.min(...v)])) };
}

const MiB = 1024 * 1024;
const watch = watchMachine();
const open = await scenario(`loopback, ${sizeMiB} MiB`, sizeMiB);
const linkMiB = Math.min(sizeMiB, 256);
const shared = await scenario(`shared link ${rateMiB} MiB/s, ${linkMiB} MiB`, linkMiB, { link: rateMiB * MiB });
const capped = await scenario(`${perConnMiB} MiB/s per connection, link ${rateMiB} MiB/s, ${linkMiB} MiB`, linkMiB,
  { throttle: perConnMiB * MiB, link: rateMiB * MiB });
fs.rmSync(work, { recursive: true, force: true });
const seen = watch.stop();

const rows = ({ label, mib, runs, best }) => {
  const row = (client, key, target = '') => {
    const all = runs[key].map((s) => s.toFixed(2)).join(', ');
    return `| ${label} | ${client} | ${best[key].toFixed(2)} | ${all} | ${(mib / best[key]).toFixed(0)} | ` +
      `${(best.curl / best[key]).toFixed(3)} | ${(best.z1 / best[key]).toFixed(3)} | ${target} |`;
  };
  return [row('curl -o', 'curl'), row('curl -o, then sync -d', 'curlSync'),
    row('zest pull, 1 connection', 'z1', '≥ 0.95 of curl'), row('zest pull, 4 connections', 'z4')].join('\n');
};
const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'cpu';
const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD']).toString().trim();
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const table = `## ${date} UTC — download: ${os.hostname()}: ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB — commit ${commit}

Sparse files from the fake hub on loopback (302 to a CDN path, Range), ${rounds} runs each, interleaved; ratios compare the best runs. zest's time includes sha256 (hashed while the bytes arrive) and fdatasync before publishing; plain curl leaves its file in the page cache, the \`sync -d\` row adds the same fdatasync zest does. Unthrottled, the hub, the client and the hash share ${os.cpus().length} cores. The shared link paces all connections together (one queue, as a network link does: ${rateMiB} MiB/s is a fast home link); the last scenario adds a cap of ${perConnMiB} MiB/s on each connection, as a server that limits connections would.

| link | client | best s | every run s | MiB/s (best) | ratio to curl | ratio to zest, 1 connection | target |
|---|---|---:|---|---:|---:|---:|---|
${rows(open)}
${rows(shared)}
${rows(capped)}`;
// zest's speed with one connection against curl's (curl's best time over zest's).
const vsCurl = (s, key) => (s.best.curl / s.best[key]).toFixed(3);
appendResults(table.split('\n'), {
  verdict: verdict(seen, Object.fromEntries([open, shared, capped].map((s) => [`curl -o, ${s.label}`, s.runs.curl]))),
  current: [
    { measure: `download: zest pull (1 connection) / curl -o, loopback ${sizeMiB} MiB`, value: vsCurl(open, 'z1'), target: '≥ 0.95' },
    { measure: `download: zest pull (1 connection) / curl -o, shared link ${rateMiB} MiB/s`, value: vsCurl(shared, 'z1'), target: '≥ 0.95' },
    { measure: `download: zest pull (4 connections) / curl -o, ${perConnMiB} MiB/s per connection`, value: vsCurl(capped, 'z4'), target: '' },
  ],
});
