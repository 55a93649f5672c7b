// Cold start and idle memory. Cold start: the first token of a model that is
// not loaded, through zest (request → engine spawned, ready, first token),
// against llama-server's own start-to-first-token (the same command line
// spawned by hand, its /health polled every 5 ms, then the same request),
// interleaved; the difference is what zest adds (target ≤ 50 ms). Idle
// memory: zest's resident set after serving, once idle (target ≤ 15 MB).
// Appends a table to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; the baseline: llama-server's own cold starts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { engineArgv, makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { benchModel, machine, pct } from './gateway_overhead.mjs';
import { withDirectEngine } from './lib/direct_engine.mjs';
import { everyRun } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 8);

const request = (stream) => ({
  model: 'bench', messages: [{ role: 'user', content: 'Hi.' }], max_tokens: 1, ignore_eos: true, stream,
});

// Milliseconds from `t0` to the first streamed event with content.
async function firstToken(url, t0) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request(true)),
  });
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body) {
    text += decoder.decode(chunk, { stream: true });
    if (/"content":"/.test(text)) break;
  }
  const ms = performance.now() - t0;
  for await (const _ of res.body) { /* drain */ }
  return ms;
}

async function coldThroughZest(zest) {
  const r = await zest.json('/api/v1/unload', { model: 'bench' });
  if (r.status !== 200 && r.status !== 404) throw new Error(JSON.stringify(r.data));
  return firstToken(zest.url, performance.now());
}

async function coldDirect(zest, argv) {
  // One engine at a time: zest's is unloaded first, as it is before its own round.
  await zest.json('/api/v1/unload', { model: 'bench' });
  const t0 = performance.now();
  return withDirectEngine(argv, (url) => firstToken(url, t0), { timeout: 120000, interval: 5 });
}

function rssMiB(pid) {
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  return kb / 1024;
}

async function main() {
  const watch = watchMachine();
  // Without slot saving: a restored KV cache would spare zest's first request
  // the prompt the direct engine must process, which is not a fair race.
  const zest = await startZest({
    home: makeHome({ bench: benchModel() }), env: { ZEST_LOG_LEVEL: 'info', ZEST_SAVE_SLOTS: 'false' },
  });
  try {
    const startRss = rssMiB(zest.pid);
    await firstToken(zest.url, performance.now());  // loads it once: page cache warm for both
    const [instance] = await zest.instances();
    const argv = engineArgv(instance.pid);  // its directories stay while zest runs
    const z = [];
    const d = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2) { z.push(await coldThroughZest(zest)); d.push(await coldDirect(zest, argv)); } else { d.push(await coldDirect(zest, argv)); z.push(await coldThroughZest(zest)); }
    }
    // Serve a little more, then let it sit idle.
    for (let i = 0; i < 20; i++) await zest.json('/v1/chat/completions', request(false));
    await zest.json('/api/v1/unload', { model: 'bench' });
    await new Promise((r) => setTimeout(r, 3000));
    const idleRss = rssMiB(zest.pid);
    const seen = watch.stop();
    const diffs = z.map((v, i) => v - d[i]);
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
    const f = (x) => x.toFixed(1);
    const lines = [
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${machine()} — commit ${commit}`,
      '',
      `Cold start: synthetic bench preset (~0.5B params, Q8_0), the model unloaded before each of ${ROUNDS} ` +
        'rounds, first streamed token of a 1-token chat; direct: the same llama-server command line ' +
        'spawned by hand, /health polled every 5 ms; interleaved; zest without slot saving (a restored ' +
        'cache would spare it the prompt). Idle RSS: zest alone (engines are ' +
        'processes of their own), 3 s after its last request, no model loaded.',
      '',
      '| metric | llama-server direct | through zest | zest − direct | target |',
      '|---|---:|---:|---:|---|',
      `| cold first token p50 (ms) | ${f(pct(d, 0.5))} | ${f(pct(z, 0.5))} | ${f(pct(diffs, 0.5))} | ≤ 50 |`,
      `| cold first token max (ms) | ${f(Math.max(...d))} | ${f(Math.max(...z))} | ${f(Math.max(...diffs))} | |`,
      `| zest RSS at start / idle after serving (MiB) | | ${f(startRss)} / ${f(idleRss)} | | ≤ 15 idle |`,
      '',
      `Every round in order, cold first token (ms): direct ${everyRun(d)}; through zest ${everyRun(z)}; ` +
        `zest − direct ${everyRun(diffs)}.`,
    ];
    appendResults(lines, {
      verdict: verdict(seen, { 'llama-server cold first token': d }),
      current: [
        { measure: 'cold start: first token, zest − direct, p50 (ms)', value: f(pct(diffs, 0.5)), target: '≤ 50' },
        { measure: 'zest idle RSS after serving (MiB)', value: f(idleRss), target: '≤ 15' },
      ],
    });
  } finally {
    await zest.stop();
    zest.cleanup();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
