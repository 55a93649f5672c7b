// Where zest's own time goes on the request path: `perf record` samples the
// zest process (not the engine) while it relays 1-token chat requests to the
// bench model with default settings, then the functions it spent most
// samples in, by symbol and by module. Prints; writes nothing to the repo.
// Needs perf (Debian's linux-perf) and root or kernel.perf_event_paranoid <= 1.
//
//   node bench/profile_gateway.mjs          # 400 requests
//   BENCH_PROFILE_REQUESTS=1000 node bench/profile_gateway.mjs
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHome, startZest } from '../tests/lib/zest.mjs';
import { benchModel, oneTokenLatency, pct } from './gateway_overhead.mjs';

const REQUESTS = Number(process.env.BENCH_PROFILE_REQUESTS ?? 400);

const zest = await startZest({ home: makeHome({ bench: benchModel() }) });
const data = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zest-perf-')), 'perf.data');
try {
  for (let i = 0; i < 5; i++) await oneTokenLatency(zest.url);  // loaded and warm
  const perf = spawn('perf', ['record', '-F', '2000', '-p', String(zest.pid), '-o', data],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve) => setTimeout(resolve, 500));  // perf attached
  const latencies = [];
  for (let i = 0; i < REQUESTS; i++) latencies.push(await oneTokenLatency(zest.url));
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.on('close', resolve));
  console.log(`${REQUESTS} 1-token requests through zest, p50 ${pct(latencies, 0.5).toFixed(1)} ms`);
  const report = (sort, ...extra) => execFileSync('perf', ['report', '-i', data, '--stdio', '--no-children',
    '-n', '--sort', sort, '--percent-limit', '0.7', ...extra], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const lines = (text) => text.split('\n').filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.replace(/\s+/g, ' ').trim()).join('\n');
  console.log(`\nzest's samples by module (the second column counts samples):\n${lines(report('dso'))}`);
  console.log(`\nzest's samples by function (0.7 % and over; the second column counts samples):\n${lines(report('dso,symbol'))}`);
  // Its own code only (percentages of those samples), names cut at 160 characters.
  const own = lines(report('symbol', '--dsos', 'zest', '--percentage', 'relative')).split('\n').map((l) => l.slice(0, 160)).join('\n');
  console.log(`\nin zest's own code:\n${own}`);
} finally {
  await zest.stop();
  zest.cleanup();
  fs.rmSync(path.dirname(data), { recursive: true, force: true });
}
