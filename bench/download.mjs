// Download throughput: a 1 GiB file from the fake hub (tests/lib/fake_hub.mjs)
// pulled by zest with 1 and 4 connections, against `curl -o` of the same
// URL, in one run. Appends a table to bench/RESULTS.md.
// Usage: node bench/download.mjs [--size-mib N] [--rounds N]
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
const rounds = arg('--rounds', 2);
const REPO = 'bench-org/Bench-GGUF';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-dl-'));
const source = path.join(work, 'bench-Q4_K_M.gguf');
// Random-looking content would cost minutes to write; a sparse file reads as
// zeros from the page cache, which keeps the benchmark about transfer.
fs.closeSync(fs.openSync(source, 'w'));
fs.truncateSync(source, sizeMiB * 1024 * 1024);
const hub = await startFakeHub({ repos: { [REPO]: { files: { 'bench-Q4_K_M.gguf': source } } } });
const bytes = sizeMiB * 1024 * 1024;

async function zestPull(connections) {
  const cache = fs.mkdtempSync(path.join(work, 'cache-'));
  const zest = await startZest({ home: makeHome({}),
    env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache, ZEST_PULL_CONNECTIONS: String(connections) } });
  try {
    const t0 = process.hrtime.bigint();
    const r = await zest.json('/api/v1/pull', { model: REPO, stream: false });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 200) throw new Error(JSON.stringify(r.data));
    return s;
  } finally {
    await zest.stop();
    zest.cleanup();
    fs.rmSync(cache, { recursive: true, force: true });
  }
}

// Asynchronous: the fake hub runs in this process and must keep serving.
async function curl() {
  const out = path.join(work, 'curl.out');
  const t0 = process.hrtime.bigint();
  await promisify(execFile)('curl', ['-sSfL', '-o', out, `${hub.url}/${REPO}/resolve/main/bench-Q4_K_M.gguf`]);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  fs.rmSync(out);
  return s;
}

const best = { curl: Infinity, z1: Infinity, z4: Infinity };
for (let i = 0; i < rounds; ++i) {  // interleaved, best of N
  best.curl = Math.min(best.curl, await curl());
  best.z1 = Math.min(best.z1, await zestPull(1));
  best.z4 = Math.min(best.z4, await zestPull(4));
}
await hub.close();
fs.rmSync(work, { recursive: true, force: true });

const mibs = (s) => (bytes / 1048576 / s).toFixed(0);
const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'cpu';
const commit = execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD']).toString().trim();
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const table = `
## ${date} UTC — download: ${os.hostname()}: ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB — commit ${commit}

${sizeMiB} MiB sparse file from the fake hub on loopback (302 to a CDN path, Range), best of ${rounds}, interleaved. zest's time includes the sha256 check and fdatasync before publishing; curl only writes.

| client | seconds | MiB/s | ratio to curl | target |
|---|---:|---:|---:|---|
| curl -o | ${best.curl.toFixed(2)} | ${mibs(best.curl)} | 1.000 | |
| zest pull, 1 connection | ${best.z1.toFixed(2)} | ${mibs(best.z1)} | ${(best.curl / best.z1).toFixed(3)} | ≥ 0.95 |
| zest pull, 4 connections | ${best.z4.toFixed(2)} | ${mibs(best.z4)} | ${(best.curl / best.z4).toFixed(3)} | |
`;
console.log(table);
fs.appendFileSync(path.join(repo, 'bench/RESULTS.md'), table);
