// Load held and chaos figures (issue 7):
// (a) load held: closed-loop load at rising concurrency, 1-token chat
//     requests and 32-token streams, through zest and against a direct
//     llama-server with the same argv, interleaved per level; the gateway
//     overhead is zest's p99 minus direct's. The load held is the highest
//     level whose p99 overhead stays under 5 ms.
// (b) chaos: tests/lib/chaos.mjs's run (streamed and non-streamed chat over
//     two models while engines are SIGKILLed every 2-4 s): requests, errors
//     by kind, kills, recoveries and time to recover.
// Appends both tables to bench/RESULTS.md.
//
// Model: the synthetic "tiny" preset, so the engine's own time is small and
// the gateway's share shows.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chaosRun, countKinds, phases } from '../tests/lib/chaos.mjs';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { benchModel, machine, pct, startDirect } from './gateway_overhead.mjs';
import { appendResults } from './lib/results.mjs';

const LEVELS = (process.env.BENCH_CHAOS_LEVELS ?? '1,4,8,16,32').split(',').map(Number);
// Requests per level: at least MIN_PER_LEVEL, else 10 per concurrent worker.
const MIN_PER_LEVEL = Number(process.env.BENCH_CHAOS_MIN_PER_LEVEL ?? 200);
const ROUNDS = 4;
// The load of issue 28's review: 400 requests at 16 concurrent, half
// streamed, engines killed every 0.8-2 s, default settings.
const CHAOS_REQUESTS = Number(process.env.BENCH_CHAOS_REQUESTS ?? 400);
const CHAOS_CONCURRENCY = Number(process.env.BENCH_CHAOS_CONCURRENCY ?? 16);
// BENCH_CHAOS_KILL_MS=MIN,MAX for another kill rate.
const CHAOS_KILL_MS = (process.env.BENCH_CHAOS_KILL_MS ?? '800,2000').split(',').map(Number);
const OVERHEAD_MS = 5;
const STREAM_TOKENS = 32;

// One request over `agent`: {ms, ttft} (ttft: first content chunk, streams only).
function timedChat(url, agent, stream) {
  const body = JSON.stringify({
    model: 'tiny', messages: [{ role: 'user', content: 'Hi.' }], ignore_eos: true,
    max_tokens: stream ? STREAM_TOKENS : 1, stream,
  });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/v1/chat/completions', url), {
      method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let ttft = null;
      res.on('data', (d) => { if (ttft === null && /"content"/.test(d)) ttft = performance.now() - t0; });
      res.on('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - t0, ttft })
        : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', (err) => reject(new Error(`${url} (${stream ? 'stream' : 'request'}): ${err.message}`)));
    req.end(body);
  });
}

// `concurrency` workers sharing the level's requests: latencies and
// requests/s. Non-streamed requests reuse kept-alive connections; streams
// open one connection each on both targets (llama-server's HTTP library
// closes a kept-alive connection after a stream in a way that races the
// client's reuse: "socket hang up" on the direct target).
async function closedLoop(url, concurrency, stream, total) {
  const agent = stream ? false : new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const runs = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < total) runs.push(await timedChat(url, agent, stream));
  }));
  const seconds = (performance.now() - t0) / 1000;
  if (agent) agent.destroy();
  return { xs: runs.map((r) => (stream ? r.ttft : r.ms)).filter((x) => x !== null), n: runs.length, seconds };
}

// One level: ROUNDS rounds alternating which target goes first, so a burst
// of load from elsewhere on the machine hits both alike.
async function level(zestUrl, directUrl, concurrency, stream) {
  const total = Math.max(MIN_PER_LEVEL, concurrency * 10);
  const acc = { z: { xs: [], n: 0, seconds: 0 }, d: { xs: [], n: 0, seconds: 0 } };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [['z', zestUrl], ['d', directUrl]] : [['d', directUrl], ['z', zestUrl]];
    for (const [key, url] of order) {
      const got = await closedLoop(url, concurrency, stream, Math.ceil(total / ROUNDS));
      acc[key].xs.push(...got.xs);
      acc[key].n += got.n;
      acc[key].seconds += got.seconds;
    }
  }
  const sum = (a) => ({ p50: pct(a.xs, 0.5), p99: pct(a.xs, 0.99), rps: a.n / a.seconds });
  return { z: sum(acc.z), d: sum(acc.d) };
}

async function loadHeld(zest, direct) {
  const rows = [];
  for (const stream of [false, true]) {
    for (const c of LEVELS) {
      const { d, z } = await level(zest.url, direct.url, c, stream);
      rows.push({ stream, c, d, z, overhead: z.p99 - d.p99 });
      console.error(`${stream ? 'streams' : 'requests'} c=${c}: direct p99 ${d.p99.toFixed(1)} ms, zest p99 ${z.p99.toFixed(1)} ms, zest ${z.rps.toFixed(0)} req/s`);
    }
  }
  return rows;
}

// The highest level whose p99 overhead is under the target (levels above a
// failing one do not count).
function held(rows, stream) {
  let best = null;
  for (const r of rows.filter((x) => x.stream === stream)) {
    if (r.overhead >= OVERHEAD_MS) break;
    best = r;
  }
  return best;
}

function loadTable(rows) {
  const fmt = (x) => x.toFixed(1);
  const reqHeld = held(rows, false);
  const streamHeld = held(rows, true);
  return [
    `Model: synthetic tiny preset, engine --parallel 32 (zest: parallel 32, no reserved slots), same argv direct; ` +
      `closed loop, max(${MIN_PER_LEVEL}, 10 × concurrency) requests per level and target in ${ROUNDS} rounds alternating which target goes first; streams on a connection each. ` +
      'Requests: 1-token non-streamed chat, latency; streams: ' + `${STREAM_TOKENS}-token streamed chat, time to first token.`,
    '',
    '| load | concurrency | direct p50 ms | direct p99 ms | zest p50 ms | zest p99 ms | p99 overhead ms | zest req/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.stream ? 'streams' : 'requests'} | ${r.c} | ${fmt(r.d.p50)} | ${fmt(r.d.p99)} | ` +
      `${fmt(r.z.p50)} | ${fmt(r.z.p99)} | ${fmt(r.overhead)} | ${r.z.rps.toFixed(0)} |`),
    '',
    `Load held with p99 overhead < ${OVERHEAD_MS} ms: ` +
      (reqHeld ? `${reqHeld.z.rps.toFixed(0)} requests/s at ${reqHeld.c} concurrent` : 'none of the levels') + '; ' +
      (streamHeld ? `${streamHeld.c} concurrent streams (${streamHeld.z.rps.toFixed(0)} streams/s)` : 'no stream level') + '.',
    '',
  ];
}

// The chaos run's two models: the ~0.5B bench model by default, slow enough
// on 2 cores that 400 requests take minutes and the engines are killed
// often while they answer (on the tiny model the whole run takes ~3 s and
// sees one kill); BENCH_CHAOS_MODEL=tiny for the quick one.
const CHAOS_MODEL = process.env.BENCH_CHAOS_MODEL ?? 'bench';

async function chaos() {
  const file = CHAOS_MODEL === 'bench' ? benchModel() : CHAOS_MODEL;
  const zest = await startZest({
    home: makeHome({ a: file, b: file }),
    env: { ZEST_LOG_LEVEL: 'info' },
  });
  try {
    const run = await chaosRun(zest, { models: ['a', 'b'], requests: CHAOS_REQUESTS, concurrency: CHAOS_CONCURRENCY,
                                       killEveryMs: CHAOS_KILL_MS });
    const kinds = countKinds(run.results);
    const byPhase = await phases(zest);
    const list = (counts) => Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
    const recover = run.kills.filter((k) => k.recoveredAt !== null).map((k) => k.recoveredAt - k.at);
    const crashed = zest.proc.exitCode !== null || zest.proc.signalCode !== null;
    const errors = Object.entries(kinds).filter(([k]) => k !== 'ok').map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
    return [
      `Chaos: ${CHAOS_REQUESTS} chat requests (half streamed, 4-24 tokens) at ${CHAOS_CONCURRENCY} concurrent over two ` +
        `${CHAOS_MODEL} models (default settings) while a random llama-server is SIGKILLed every ${CHAOS_KILL_MS[0] / 1000}-${CHAOS_KILL_MS[1] / 1000} s.`,
      '',
      '| requests | ok | errors by kind | malformed, incomplete or lost | kills | recoveries | time to recover p50 / max (ms) | duration s | zest crashed |',
      '|---:|---:|---|---:|---:|---:|---|---:|---|',
      `| ${run.results.length} | ${kinds.ok ?? 0} | ${errors} | ${(kinds.malformed ?? 0) + (kinds.incomplete ?? 0) + (kinds.transport ?? 0) + (kinds.timeout ?? 0)} | ` +
        `${run.kills.length} | ${recover.length} | ${recover.length ? `${pct(recover, 0.5).toFixed(0)} / ${Math.max(...recover).toFixed(0)}` : '-'} | ` +
        `${run.seconds.toFixed(1)} | ${crashed ? 'yes' : 'no'} |`,
      '',
      'A recovery is the first successful request to the killed model that started after the kill; the time to recover ' +
        'runs from the kill to its end (it includes the engine restart and that request).',
      '',
      `Failures by phase (zest_request_failures_total): ${list(byPhase.failures)}. ` +
        `Engines that broke off a request, by phase and what zest did then (zest_engine_breaks_total): ${list(byPhase.breaks)}.`,
      '',
    ];
  } finally {
    await zest.stop();
    // zest's log says why each failed request failed (build/ is not committed).
    const log = path.join(repo, 'build', 'chaos-zest.log');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.writeFileSync(log, zest.logs());
    console.log(`zest's log of the chaos run: ${log}`);
    zest.cleanup();
  }
}

// The load-held part, before the chaos (BENCH_CHAOS_ONLY=1 skips it).
async function loadPart() {
  const zest = await startZest({
    home: makeHome({ tiny: 'tiny' }),
    env: { ZEST_LOG_LEVEL: 'info', ZEST_PARALLEL: '32', ZEST_RESERVED_SLOTS: '0', ZEST_CTX_SIZE: '256', ZEST_MAX_QUEUE: '1024' },
  });
  let direct;
  let load = [];
  try {
    await timedChat(zest.url, undefined, false);  // loads the engine
    const [instance] = await zest.instances();
    direct = await startDirect(instance.pid);
    await timedChat(direct.url, undefined, false);
    load = loadTable(await loadHeld(zest, direct));
  } finally {
    if (direct) direct.proc.kill('SIGTERM');
    await zest.stop();
    zest.cleanup();
  }
  return load;
}

async function main() {
  const load = process.env.BENCH_CHAOS_ONLY === '1' ? [] : await loadPart();
  const chaosLines = await chaos();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — load held and chaos: ${machine()} — commit ${commit}`,
    '',
    ...load,
    ...chaosLines,
  ];
  appendResults(lines);
}

main().catch((err) => { console.error(err); process.exit(1); });
