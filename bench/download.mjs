// Download throughput: a file from the fake hub (tests/lib/fake_hub.mjs)
// pulled by zest with 1 and 4 connections, against `curl -o` of the same
// URL, interleaved in one run. Two scenarios:
//   - unthrottled loopback (1 GiB): the hub, the client and sha256 all
//     compete for this machine's CPUs; it measures zest's per-byte cost;
//   - a link throttled to --rate-mib MiB/s (default 100, about a 1 Gbit/s
//     home connection; 256 MiB): what a user sees on a real network.
// Appends a table to bench/RESULTS.md.
// Usage: node bench/download.mjs [--size-mib N] [--rate-mib N] [--rounds N]
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startZest, makeHome, repo } from '../tests/lib/zest.mjs';
import { startFakeHub } from '../tests/lib/fake_hub.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const sizeMiB = arg('--size-mib', 1024);
const rateMiB = arg('--rate-mib', 100);
const rounds = arg('--rounds', 2);
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

// Best of `rounds`, interleaved, for curl and zest with 1 and 4 connections.
async function scenario(mib, throttle) {
  const hub = await startFakeHub({ repos: { [REPO]: { files: { [FILE]: sparseFile(mib) } } }, throttle });
  const best = { curl: Infinity, curlSync: Infinity, z1: Infinity, z4: Infinity };
  try {
    for (let i = 0; i < rounds; ++i) {
      best.curl = Math.min(best.curl, await curl(hub));
      best.curlSync = Math.min(best.curlSync, await curl(hub, true));
      best.z1 = Math.min(best.z1, await zestPull(hub, 1));
      best.z4 = Math.min(best.z4, await zestPull(hub, 4));
    }
  } finally { await hub.close(); }
  return { mib, best };
}

const open = await scenario(sizeMiB, 0);
const throttled = await scenario(Math.min(sizeMiB, 256), rateMiB * 1024 * 1024);
fs.rmSync(work, { recursive: true, force: true });

const rows = (label, { mib, best }) => {
  const mibs = (s) => (mib / s).toFixed(0);
  return [
    `| ${label} | curl -o | ${best.curl.toFixed(2)} | ${mibs(best.curl)} | 1.000 | |`,
    `| ${label} | curl -o, then sync -d | ${best.curlSync.toFixed(2)} | ${mibs(best.curlSync)} | ${(best.curl / best.curlSync).toFixed(3)} | |`,
    `| ${label} | zest pull, 1 connection | ${best.z1.toFixed(2)} | ${mibs(best.z1)} | ${(best.curl / best.z1).toFixed(3)} | ≥ 0.95 |`,
    `| ${label} | zest pull, 4 connections | ${best.z4.toFixed(2)} | ${mibs(best.z4)} | ${(best.curl / best.z4).toFixed(3)} | |`,
  ].join('\n');
};
const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'cpu';
const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD']).toString().trim();
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const table = `
## ${date} UTC — download: ${os.hostname()}: ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB — commit ${commit}

Sparse files from the fake hub on loopback (302 to a CDN path, Range), best of ${rounds}, interleaved. zest's time includes sha256 (hashed while the bytes arrive) and fdatasync before publishing; plain curl leaves its file in the page cache, the \`sync -d\` row adds the same fdatasync zest does. Unthrottled, the hub, the client and the hash share ${os.cpus().length} cores; throttled to ${rateMiB} MiB/s is a fast home link.

| link | client | seconds | MiB/s | ratio to curl | target |
|---|---|---:|---:|---:|---|
${rows(`loopback, ${open.mib} MiB`, open)}
${rows(`${rateMiB} MiB/s, ${throttled.mib} MiB`, throttled)}
`;
console.log(table);
fs.appendFileSync(path.join(repo, 'bench/RESULTS.md'), table);
