// Gateway overhead: the same model with the same engine settings, measured
// through zest and directly against llama-server, interleaved in one process
// so machine noise hits both alike. Writes a table to bench/RESULTS.md.
//
// Model: the synthetic "bench" preset (~0.5B parameters, Q8_0), generated
// into a cache outside the repo on first use (model files are never committed).
// BENCH_ROUNDS (40): 1-token latency rounds; BENCH_STREAM_RUNS (4): runs of
// each stream measurement; BENCH_STREAM_TOKENS (64): tokens per stream.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { engineArgvOnTcp, makeHome, repo, startZest, waitFor } from '../tests/lib/zest.mjs';
import { everyRun } from './lib/runs.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
export const STREAM_TOKENS = Number(process.env.BENCH_STREAM_TOKENS ?? 64);
// Runs of each stream measurement per target; the ratios move by ±0.05 from
// run to run on a busy 2-core machine, so a claim about 0.98 needs more.
const STREAM_RUNS = Number(process.env.BENCH_STREAM_RUNS ?? 4);
export const CONCURRENCY = 16;

export function benchModel() {
  const dir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'zest', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'bench-q8_0.gguf');
  if (!fs.existsSync(file)) {
    console.error('writing the ~0.5B-parameter bench model (once)...');
    execFileSync(path.join(repo, 'build/zest-make-model'), ['--preset', 'bench', '--out', file], { stdio: 'inherit' });
  }
  return file;
}

// Starts a second llama-server with the argv zest used for its instance,
// but listening on TCP like a user running it by hand would. `parallel`, when
// given, replaces --parallel: zest keeps scheduler.reserved_slots of its
// engine's sequences for high priority, so normal requests batch that many
// fewer, and the fair baseline is an engine with the sequences they get.
export async function startDirect(enginePid, { parallel } = {}) {
  const port = 18000 + Math.floor(Math.random() * 1000);
  const argv = engineArgvOnTcp(enginePid, port);
  if (parallel !== undefined) argv[argv.indexOf('--parallel') + 1] = String(parallel);
  const proc = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    try { return (await fetch(`${url}/health`)).status === 200; } catch { return false; }
  }, { timeout: 120000, interval: 100, what: 'direct llama-server' });
  return { proc, url };
}

const body = (maxTokens, stream) => ({
  model: 'bench',
  messages: [{ role: 'user', content: 'Write a short poem about the sea.' }],
  max_tokens: maxTokens,
  ignore_eos: true,
  stream,
});

export async function oneTokenLatency(url) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(1, false)),
  });
  await res.json();
  return performance.now() - t0;
}

// Streams one completion; returns the number of content chunks and seconds.
export async function streamTokens(url, tokens) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(tokens, true)),
  });
  let n = 0;
  const decoder = new TextDecoder();
  for await (const chunk of res.body) n += (decoder.decode(chunk).match(/"delta":\{"content"/g) || []).length;
  return { tokens: n, seconds: (performance.now() - t0) / 1000 };
}

export async function concurrentThroughput(url, streams = CONCURRENCY) {
  const t0 = performance.now();
  const runs = await Promise.all(Array.from({ length: streams }, () => streamTokens(url, STREAM_TOKENS)));
  const tokens = runs.reduce((a, r) => a + r.tokens, 0);
  return tokens / ((performance.now() - t0) / 1000);
}

// CPU seconds a process has used (user + system, from /proc).
export function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;  // utime, stime in clock ticks
}

export const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

// Runs `fn` alternately against both targets `rounds` times.
export async function interleaved(rounds, fn, zestUrl, directUrl) {
  const z = []; const d = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2) { z.push(await fn(zestUrl)); d.push(await fn(directUrl)); } else { d.push(await fn(directUrl)); z.push(await fn(zestUrl)); }
  }
  return { z, d };
}

export function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.hostname()}: ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

async function main() {
  const model = benchModel();
  // Default settings, as a user runs zest.
  const zest = await startZest({ home: makeHome({ bench: model }), env: { ZEST_LOG_LEVEL: 'info' } });
  let direct;
  try {
    await oneTokenLatency(zest.url);  // loads the engine
    const [instance] = await zest.instances();
    const argv = engineArgvOnTcp(instance.pid, 0);
    const engineParallel = Number(argv[argv.indexOf('--parallel') + 1]);
    const reserved = Number(process.env.ZEST_RESERVED_SLOTS ?? 1);  // scheduler.reserved_slots' default
    direct = await startDirect(instance.pid, { parallel: engineParallel - reserved });
    const zestUrl = `${zest.url}`;
    for (const url of [zestUrl, direct.url]) await oneTokenLatency(url);  // warm both

    const lat = await interleaved(ROUNDS, oneTokenLatency, zestUrl, direct.url);
    const single = await interleaved(STREAM_RUNS, (u) => streamTokens(u, STREAM_TOKENS * 2), zestUrl, direct.url);
    // zest's own CPU while it relays the concurrent streams: on a 2-core
    // machine every cycle it takes is one the engine does not get.
    let zestCpu = 0;
    let zestWall = 0;
    let zestTokens = 0;
    const conc8 = await interleaved(STREAM_RUNS, (url) => concurrentThroughput(url, 8), zestUrl, direct.url);
    const conc = await interleaved(STREAM_RUNS, async (url) => {
      if (url !== zestUrl) return concurrentThroughput(url);
      const cpu0 = cpuSeconds(zest.pid);
      const t0 = performance.now();
      const tps = await concurrentThroughput(url);
      const wall = (performance.now() - t0) / 1000;
      zestCpu += cpuSeconds(zest.pid) - cpu0;
      zestWall += wall;
      zestTokens += tps * wall;
      return tps;
    }, zestUrl, direct.url);
    const tps = (runs) => runs.reduce((a, r) => a + r.tokens, 0) / runs.reduce((a, r) => a + r.seconds, 0);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

    const rows = [
      ['1-token chat latency p50 (ms)', pct(lat.d, 0.5), pct(lat.z, 0.5), pct(lat.z, 0.5) / pct(lat.d, 0.5), '≤ 1.03'],
      ['1-token chat latency p99 (ms)', pct(lat.d, 0.99), pct(lat.z, 0.99), pct(lat.z, 0.99) / pct(lat.d, 0.99), ''],
      ['1 stream, tokens/s', tps(single.d), tps(single.z), tps(single.z) / tps(single.d), '≥ 0.98'],
      ['8 streams, tokens/s (sum)', mean(conc8.d), mean(conc8.z), mean(conc8.z) / mean(conc8.d), '≥ 0.98'],
      [`${CONCURRENCY} streams, tokens/s (sum)`, mean(conc.d), mean(conc.z), mean(conc.z) / mean(conc.d), '≥ 0.98'],
    ];
    const cpuRows = [
      `| zest CPU per streamed token, ${CONCURRENCY} streams (µs) | ${(1e6 * zestCpu / zestTokens).toFixed(0)} |`,
      `| zest CPU during the ${CONCURRENCY}-stream runs (% of one core) | ${(100 * zestCpu / zestWall).toFixed(1)} |`,
    ];
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
    const lines = [
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${machine()} — commit ${commit}`,
      '',
      `Model: synthetic bench preset (~0.5B params, Q8_0), zest with default settings, the direct engine with zest's argv and the sequences normal requests get (--parallel ${engineParallel - reserved} of ${engineParallel}); ${ROUNDS} latency rounds, ` +
        `${STREAM_TOKENS * 2}-token single streams, 8 and ${CONCURRENCY}×${STREAM_TOKENS}-token concurrent, ×${STREAM_RUNS} each, interleaved.`,
      '',
      '| metric | llama-server direct | through zest | ratio zest/direct | target |',
      '|---|---:|---:|---:|---|',
      ...rows.map(([name, d, z, r, t]) => `| ${name} | ${d.toFixed(1)} | ${z.toFixed(1)} | ${r.toFixed(3)} | ${t} |`),
      '',
      '| every run, in order | llama-server direct | through zest |',
      '|---|---|---|',
      `| 1 stream, tokens/s | ${everyRun(single.d.map((r) => r.tokens / r.seconds))} | ${everyRun(single.z.map((r) => r.tokens / r.seconds))} |`,
      `| 8 streams, tokens/s (sum) | ${everyRun(conc8.d)} | ${everyRun(conc8.z)} |`,
      `| ${CONCURRENCY} streams, tokens/s (sum) | ${everyRun(conc.d)} | ${everyRun(conc.z)} |`,
      '',
      '| zest itself | |',
      '|---|---:|',
      ...cpuRows,
      '',
    ];
    const out = path.join(repo, 'bench/RESULTS.md');
    if (!fs.existsSync(out)) fs.writeFileSync(out, '# Benchmark results\n\nAppended by `make bench`; newest last.\n\n');
    fs.appendFileSync(out, lines.join('\n') + '\n');
    console.log(lines.join('\n'));
  } finally {
    if (direct) direct.proc.kill('SIGTERM');
    await zest.stop();
    zest.cleanup();
  }
}

// Run as a script; imported (bench/metrics_overhead.mjs) it only lends its helpers.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => { console.error(err); process.exit(1); });
}
