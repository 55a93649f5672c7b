// Where zest's own time goes on the 1-token path: 1-token, non-streamed chat
// completions to the gateway benchmark's model (~85M parameters, Q8_0:
// bench/gateway_overhead.mjs), default settings, one at a time. Prints;
// writes nothing to the repo. Four ways to look:
//
//   node bench/profile_gateway.mjs              # perf record on the zest process
//   node bench/profile_gateway.mjs --callgrind  # instructions per request (valgrind)
//   node bench/profile_gateway.mjs --strace     # system calls and context switches per request
//   node bench/profile_gateway.mjs --switches   # context switches and CPU per request, untraced
//
// BENCH_PROFILE_REQUESTS (400 for perf, 200 for the others): requests.
// BENCH_PROFILE_MODEL: another .gguf to serve (e.g. the 0.5B bench model).
// BENCH_PROFILE_MODELS (1): models in the home, the others links to the same
// file that are never asked (what a lookup among many models costs).
//
// --callgrind is the figure to trust on a busy machine: instruction counts do
// not move with load. zest runs under valgrind with instrumentation off until
// it is loaded and warm; then an idle window (timers, scrapes) and the
// requests are counted separately, and the idle rate is taken off the
// requests' window. Instructions only, user space only: system calls are
// --strace's. perf needs linux-perf and root (or perf_event_paranoid <= 1).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { descendants, makeHome, startZest } from '../tests/lib/zest.mjs';
import { gatewayModel, oneTokenLatency, pct } from './gateway_overhead.mjs';

const mode = process.argv.includes('--callgrind') ? 'callgrind'
  : process.argv.includes('--strace') ? 'strace'
    : process.argv.includes('--switches') ? 'switches' : 'perf';
const REQUESTS = Number(process.env.BENCH_PROFILE_REQUESTS ?? (mode === 'perf' ? 400 : 200));
// Seconds of idle counted under callgrind, to take the server's own timers
// off the requests' window.
const IDLE_S = Number(process.env.BENCH_PROFILE_IDLE_S ?? 10);
const model = process.env.BENCH_PROFILE_MODEL ?? gatewayModel();
const MODELS = Number(process.env.BENCH_PROFILE_MODELS ?? 1);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-profile-'));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
const lines = (text) => text.split('\n').filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => l.replace(/\s+/g, ' ').trim()).join('\n');

async function requests(url, n) {
  const latencies = [];
  for (let i = 0; i < n; i++) latencies.push(await oneTokenLatency(url));
  return latencies;
}

async function perfProfile(zest) {
  const data = path.join(work, 'perf.data');
  const perf = spawn('perf', ['record', '-F', '2000', '-p', String(zest.pid), '-o', data],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  await sleep(500);  // perf attached
  const latencies = await requests(zest.url, REQUESTS);
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.on('close', resolve));
  console.log(`${REQUESTS} 1-token requests through zest, p50 ${pct(latencies, 0.5).toFixed(1)} ms`);
  const report = (sort, ...extra) => run('perf', ['report', '-i', data, '--stdio', '--no-children',
    '-n', '--sort', sort, '--percent-limit', '0.7', ...extra]);
  console.log(`\nzest's samples by module (the second column counts samples):\n${lines(report('dso'))}`);
  console.log(`\nzest's samples by function (0.7 % and over; the second column counts samples):\n${lines(report('dso,symbol'))}`);
  // Its own code only (percentages of those samples), names cut at 160 characters.
  const own = lines(report('symbol', '--dsos', 'zest', '--percentage', 'relative')).split('\n')
    .map((l) => l.slice(0, 160)).join('\n');
  console.log(`\nin zest's own code:\n${own}`);
}

// The total instructions of a callgrind dump (its "summary:" line).
function dumpTotal(file) {
  const m = /^(?:summary|totals):\s*(\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  return m ? Number(m[1]) : 0;
}

// Dumps callgrind's counts so far into a new file and zeroes them; returns its path.
function callgrindDump(pid) {
  const before = new Set(fs.readdirSync(work));
  run('callgrind_control', ['-d', String(pid)]);
  const added = fs.readdirSync(work).filter((f) => f.startsWith('callgrind.out') && !before.has(f));
  if (added.length !== 1) throw new Error(`expected one new callgrind dump, found ${added.join(', ')}`);
  return path.join(work, added[0]);
}

function annotate(file, inclusive) {
  const text = run('callgrind_annotate', [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=99',
    file]);
  const rows = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$/.exec(line);
    if (!m || !m[2].includes(':')) continue;
    rows.push({ ir: Number(m[1].replace(/,/g, '')), name: m[2].trim() });
  }
  return rows;
}

async function callgrindProfile(zest) {
  const pid = zest.pid;
  run('callgrind_control', ['-i', 'on', String(pid)]);
  callgrindDump(pid);  // what turning it on caught: thrown away
  const idleStart = performance.now();
  await sleep(IDLE_S * 1000);
  const idleFile = callgrindDump(pid);
  const idleS = (performance.now() - idleStart) / 1000;
  const t0 = performance.now();
  const latencies = await requests(zest.url, REQUESTS);
  const reqFile = callgrindDump(pid);
  const reqS = (performance.now() - t0) / 1000;
  run('callgrind_control', ['-i', 'off', String(pid)]);
  const idleRate = dumpTotal(idleFile) / idleS;
  const total = dumpTotal(reqFile);
  const perRequest = (total - idleRate * reqS) / REQUESTS;
  console.log(`${REQUESTS} 1-token requests through zest under callgrind (p50 ${pct(latencies, 0.5).toFixed(1)} ms there)`);
  console.log(`instructions: ${total.toLocaleString('en')} in ${reqS.toFixed(1)} s of requests; ` +
    `idle ${Math.round(idleRate).toLocaleString('en')}/s (${idleS.toFixed(1)} s counted)`);
  console.log(`**instructions per request: ${Math.round(total / REQUESTS).toLocaleString('en')} ` +
    `(${Math.round(perRequest).toLocaleString('en')} with the idle rate taken off)**`);
  const show = (title, rows) => {
    console.log(`\n${title} (instructions per request, share of the request window):`);
    for (const r of rows.slice(0, 40)) {
      console.log(`${Math.round(r.ir / REQUESTS).toLocaleString('en').padStart(10)}  ${(100 * r.ir / total).toFixed(1).padStart(5)} %  ${r.name.slice(0, 150)}`);
    }
  };
  show('by function, self', annotate(reqFile, false));
  show('by function, inclusive', annotate(reqFile, true));
  const keep = process.env.BENCH_PROFILE_KEEP;
  if (keep) {
    fs.copyFileSync(reqFile, keep);
    console.log(`\nthe requests' dump: ${keep} (callgrind_annotate ${keep})`);
  }
}

// CPU seconds `pid` has used, user and system (all threads, from /proc).
function cpuTimes(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

// Context switches of every thread of `pid` so far: voluntary (it blocked:
// one per wait for I/O or a lock) and involuntary (preempted).
function switches(pid) {
  let voluntary = 0;
  let involuntary = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let status;
    try { status = fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'); } catch { continue; }
    voluntary += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)[1]);
    involuntary += Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)[1]);
  }
  return { voluntary, involuntary };
}

// zest's and the engine's context switches per request, untraced: each
// voluntary one is a thread that slept and had to be woken, a cost that
// does not show in instruction counts.
async function switchesPerRequest(zest) {
  const [instance] = await zest.instances();
  const engine = descendants(instance.pid).find((p) => p.comm === 'llama-server')?.pid;
  const z0 = switches(zest.pid);
  const e0 = engine ? switches(engine) : null;
  const cpu0 = cpuTimes(zest.pid);
  await requests(zest.url, REQUESTS);
  const cpu1 = cpuTimes(zest.pid);
  const z1 = switches(zest.pid);
  const per = (a, b, key) => ((b[key] - a[key]) / REQUESTS).toFixed(1);
  console.log(`context switches per request: zest ${per(z0, z1, 'voluntary')} voluntary, ${per(z0, z1, 'involuntary')} involuntary` +
    (engine ? `; the engine ${per(e0, switches(engine), 'voluntary')} voluntary, ${per(e0, switches(engine), 'involuntary')} involuntary` : ''));
  // Clock ticks of 10 ms: over a few hundred requests, a few µs per request.
  const us = (key) => (1e6 * (cpu1[key] - cpu0[key]) / REQUESTS).toFixed(0);
  console.log(`zest CPU per request (all threads, untraced): ${us('user')} µs user, ${us('system')} µs system`);
}

// strace -c -f on every thread of zest while `task` runs; its table as
// { name: { calls, errors } } and the seconds it took.
async function straceCounts(pid, task) {
  const out = path.join(work, `strace-${Date.now()}.txt`);
  const tids = fs.readdirSync(`/proc/${pid}/task`);
  const strace = spawn('strace', ['-c', '-f', '-o', out, ...tids.flatMap((t) => ['-p', t])],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let attached = '';
  strace.stderr.on('data', (d) => { attached += d; });
  // strace says "Process N attached" for each thread once it holds it.
  const deadline = Date.now() + 10000;
  while ((attached.match(/attached/g) || []).length < tids.length && Date.now() < deadline) await sleep(50);
  const t0 = performance.now();
  await task();
  const seconds = (performance.now() - t0) / 1000;
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.on('close', resolve));
  const counts = {};
  for (const line of fs.readFileSync(out, 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (f.length < 5 || !/^\d/.test(f[0]) || f[f.length - 1] === 'total') continue;
    counts[f[f.length - 1]] = { calls: Number(f[3]), errors: f.length === 6 ? Number(f[4]) : 0 };
  }
  return { counts, seconds, threads: tids.length };
}

async function straceProfile(zest) {
  await switchesPerRequest(zest);
  // The server's own timers (health probes, the sampler, scrapes) counted
  // alone first, and their rate taken off the requests' window.
  const idle = await straceCounts(zest.pid, () => sleep(IDLE_S * 1000));
  const busy = await straceCounts(zest.pid, () => requests(zest.url, REQUESTS));
  console.log(`${REQUESTS} 1-token requests through zest in ${busy.seconds.toFixed(1)} s, ${busy.threads} threads traced; ` +
    `calls per request, the idle rate (${idle.seconds.toFixed(1)} s counted) taken off:`);
  let total = 0;
  const rows = Object.entries(busy.counts).map(([name, c]) => {
    const idleRate = (idle.counts[name]?.calls ?? 0) / idle.seconds;
    const per = Math.max(0, c.calls - idleRate * busy.seconds) / REQUESTS;
    total += per;
    return { name, per, errors: c.errors / REQUESTS };
  }).filter((r) => r.per >= 0.01).sort((a, b) => b.per - a.per);
  for (const r of rows) console.log(`${r.per.toFixed(2).padStart(8)}  ${r.name}${r.errors ? ` (${r.errors.toFixed(2)} failed, idle not taken off)` : ''}`);
  const raw = Object.values(busy.counts).reduce((a, c) => a + c.calls, 0) / REQUESTS;
  console.log(`${total.toFixed(2).padStart(8)}  total (${raw.toFixed(2)} with the idle rate left in)`);
}

const prefix = mode === 'callgrind'
  ? ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${work}/callgrind.out`]
  : [];
// Default settings, as a user runs zest (info is the default log level).
const models = { bench: model };
for (let i = 2; i <= MODELS; i++) models[`other-${i}`] = model;
const zest = await startZest({ home: makeHome(models), prefix, env: { ZEST_LOG_LEVEL: 'info' } });
try {
  for (let i = 0; i < 5; i++) await oneTokenLatency(zest.url);  // loaded and warm
  if (mode === 'callgrind') await callgrindProfile(zest);
  else if (mode === 'strace') await straceProfile(zest);
  else if (mode === 'switches') await switchesPerRequest(zest);
  else await perfProfile(zest);
} finally {
  await zest.stop();
  zest.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
}
