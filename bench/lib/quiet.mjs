// Benchmarks on a quiet machine only. A figure measured beside a build or
// another test suite is noise (bench/RESULTS.md once held "plain direct 2.5,
// 28.8 tok/s" from one run, and the docs quoted a speed-up from it), so
// every benchmark watches the machine while it runs and its results count
// only when the machine was quiet:
//  - before it starts: the 1-minute load average at most 0.5 per core;
//  - while it runs: CPU taken by processes outside the benchmark's own
//    tree (node, zest, the engines, the baseline servers it started) at
//    most 0.5 of a core on average, sampled every second from /proc;
//  - CPU steal (the hypervisor's other guests) at most 5 % while it runs;
//  - the baseline's own rounds spread at most 20 % around their median.
// A run that fails any of these is printed, marked "not a measurement",
// and not appended to bench/RESULTS.md (BENCH_FORCE=1 appends it marked).
import fs from 'node:fs';
import os from 'node:os';

const CORES = os.cpus().length;
const MAX_LOAD_PER_CORE = 0.5;
const MAX_OTHERS_CORES = 0.5;
const MAX_STEAL = 0.05;
const MAX_BASELINE_SPREAD = 0.2;
const TICKS = 100;  // USER_HZ: /proc's clock ticks a second on Linux

// /proc/stat's first line: busy and steal ticks of all CPUs.
function cpuTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return { busy: user + nice + system + irq + softirq, steal, all: f.slice(0, 8).reduce((a, b) => a + b, 0) };
}

// The benchmark's tree now: pid → {ppid, own (its utime + stime), reaped
// (cutime + cstime: the children it waited for)}, for `root` and every
// descendant alive.
function tree(root) {
  const procs = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8'); } catch { continue; }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    procs.set(Number(entry), { ppid: f[1], own: f[11] + f[12], reaped: f[13] + f[14] });
  }
  const ours = new Map();
  for (const [pid, p] of procs) {
    for (let q = pid; q > 0; q = procs.get(q)?.ppid ?? 0) {
      if (q === root) { ours.set(pid, p); break; }
    }
  }
  return ours;
}

// CPU ticks the tree took between two readings. A process that ended in
// between counts through the ancestor that waited for it: that one's
// `reaped` grew by the process's whole life, of which `prev` held all but
// the last interval. One reaped outside the tree (an orphan; a process in a
// PID namespace whose init was killed) loses its last interval, which then
// counts as others'. (Summing the tree's ticks, as this did first, lost a
// dead process's whole life: each engine cold_start.mjs stopped made that
// second's CPU others', up to 2.8 s of an engine's CPU at one stop.)
function treeDelta(prev, now) {
  const heldByDead = new Map();  // alive ancestor → what its dead descendants held at `prev`
  for (const [pid, p] of prev) {
    if (now.has(pid)) continue;
    let a = p.ppid;
    while (a > 0 && !now.has(a)) a = prev.get(a)?.ppid ?? 0;
    if (a > 0) heldByDead.set(a, (heldByDead.get(a) ?? 0) + p.own + p.reaped);
  }
  let sum = 0;
  for (const [pid, n] of now) {
    const p = prev.get(pid);
    if (!p) sum += n.own + n.reaped;
    else sum += Math.max(0, n.own - p.own) + Math.max(0, n.reaped - p.reaped - (heldByDead.get(pid) ?? 0));
  }
  return sum;
}

export function loadAverage() {
  return Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

// Starts watching the machine; `stop()` returns what was seen:
// {loadBefore, othersCores, steal, seconds}. The benchmark's own tree is
// this process's: everything it spawned is inside it (see treeDelta for
// the processes that end while it runs).
export function watchMachine() {
  const loadBefore = loadAverage();
  const start = { cpu: cpuTicks(), ours: tree(process.pid), at: performance.now() };
  let prev = start;
  let othersTicks = 0;
  const sample = () => {
    const now = { cpu: cpuTicks(), ours: tree(process.pid), at: performance.now() };
    const ours = treeDelta(prev.ours, now.ours);
    othersTicks += Math.max(0, (now.cpu.busy - prev.cpu.busy) - ours);
    prev = now;
  };
  const timer = setInterval(sample, 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const seconds = (prev.at - start.at) / 1000;
      const all = prev.cpu.all - start.cpu.all;
      return {
        loadBefore,
        othersCores: seconds > 0 ? othersTicks / TICKS / seconds : 0,
        steal: all > 0 ? (prev.cpu.steal - start.cpu.steal) / all : 0,
        seconds,
      };
    },
  };
}

// (max - min) / median of `values`: how far a baseline's rounds spread.
export function spread(values) {
  if (values.length < 2) return 0;
  const s = [...values].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return median > 0 ? (s[s.length - 1] - s[0]) / median : 0;
}

// The verdict on a run: {quiet, reasons[], line}. `seen` from
// watchMachine().stop(); `baselines`: {name: [values of its rounds]}.
export function verdict(seen, baselines = {}) {
  const reasons = [];
  if (seen.loadBefore > MAX_LOAD_PER_CORE * CORES) {
    reasons.push(`load average ${seen.loadBefore.toFixed(2)} before the run (over ${MAX_LOAD_PER_CORE * CORES} on ${CORES} cores)`);
  }
  if (seen.othersCores > MAX_OTHERS_CORES) {
    reasons.push(`other processes took ${seen.othersCores.toFixed(2)} cores during the run (over ${MAX_OTHERS_CORES})`);
  }
  if (seen.steal > MAX_STEAL) reasons.push(`CPU steal ${(100 * seen.steal).toFixed(1)} % (over ${100 * MAX_STEAL} %)`);
  const spreads = [];
  for (const [name, values] of Object.entries(baselines)) {
    const s = spread(values);
    spreads.push(`${name} ${(100 * s).toFixed(0)} %`);
    if (s > MAX_BASELINE_SPREAD) reasons.push(`the baseline's rounds (${name}) spread ${(100 * s).toFixed(0)} % (over ${100 * MAX_BASELINE_SPREAD} %)`);
  }
  const line = `Machine: load ${seen.loadBefore.toFixed(2)} before, other processes ${seen.othersCores.toFixed(2)} cores and ` +
    `steal ${(100 * seen.steal).toFixed(1)} % during the ${seen.seconds.toFixed(0)} s run` +
    (spreads.length ? `; baseline spread ${spreads.join(', ')}` : '') +
    (reasons.length ? `. NOT A MEASUREMENT: ${reasons.join('; ')}.` : '.');
  return { quiet: reasons.length === 0, reasons, line };
}
