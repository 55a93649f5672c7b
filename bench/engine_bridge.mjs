// Engine bridge overhead: FastFlowLM only listens on TCP, so zest reaches it
// through `zest engine-bridge` (a UNIX socket relayed to the engine's port,
// engines/tcp_bridge.h). This measures what that hop costs, with the real
// llama-server standing in for FastFlowLM (there is no NPU here): one engine
// process, asked directly on its TCP port and through the bridge's socket,
// interleaved so machine noise hits both alike. Appends a table to
// bench/RESULTS.md when the machine was quiet (bench/lib/quiet.mjs; the
// baseline: the TCP port's own rounds).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { argvOnTcp, engineArgv, makeHome, repo, startZest, waitFor, zestBin } from '../tests/lib/zest.mjs';
import { benchModel, machine, pct, STREAM_TOKENS } from './gateway_overhead.mjs';
import { everyRun, roundMedians } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const CONCURRENCY = 8;

const body = (maxTokens, stream) => JSON.stringify({
  model: 'bench',
  messages: [{ role: 'user', content: 'Write a short poem about the sea.' }],
  max_tokens: maxTokens,
  ignore_eos: true,
  stream,
});

// One POST over `target` ({host, port} or {socketPath}); resolves with the
// milliseconds to the last byte and the content chunks in the answer.
function post(target, payload) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ ...target, path: '/v1/chat/completions', method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      agent: false }, (res) => {
      let chunks = 0;
      let text = '';
      res.on('data', (d) => {
        chunks += (d.toString().match(/"delta":\{"content"/g) || []).length;
        if (res.statusCode !== 200) text += d;
      });
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${res.statusCode}: ${text}`));
        else resolve({ ms: performance.now() - t0, chunks });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function interleaved(rounds, fn, direct, bridged) {
  const d = []; const b = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2) { b.push(await fn(bridged)); d.push(await fn(direct)); } else { d.push(await fn(direct)); b.push(await fn(bridged)); }
  }
  return { d, b };
}

const latency = async (t) => (await post(t, body(1, false))).ms;
const stream = (t) => post(t, body(STREAM_TOKENS * 2, true));
async function concurrent(t) {
  const t0 = performance.now();
  const runs = await Promise.all(Array.from({ length: CONCURRENCY }, () => post(t, body(STREAM_TOKENS, true))));
  return runs.reduce((a, r) => a + r.chunks, 0) / ((performance.now() - t0) / 1000);
}

async function main() {
  const watch = watchMachine();
  // The engine's command line as zest runs it, taken from a zest instance.
  const zest = await startZest({ home: makeHome({ bench: benchModel() }), args: ['--parallel', String(CONCURRENCY)],
                                 env: { ZEST_LOG_LEVEL: 'info' } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-bridge-'));
  let bridge;
  try {
    await zest.json('/api/v1/load', { model: 'bench' });
    const [instance] = await zest.instances();
    const port = 19000 + Math.floor(Math.random() * 1000);
    const running = engineArgv(instance.pid);
    await zest.json('/api/v1/unload', { model: 'bench' });
    const argv = argvOnTcp(running, port);
    const socketPath = path.join(dir, 'engine.sock');
    bridge = spawn(zestBin, ['engine-bridge', '--socket', socketPath, '--port', String(port), '--', ...argv],
                   { stdio: 'ignore' });
    const direct = { host: '127.0.0.1', port };
    const bridged = { socketPath };
    await waitFor(async () => {
      try { await latency(bridged); return true; } catch { return false; }
    }, { timeout: 120000, interval: 200, what: 'the engine behind the bridge' });
    for (const t of [direct, bridged]) await latency(t);  // warm both

    const lat = await interleaved(ROUNDS, latency, direct, bridged);
    const single = await interleaved(6, stream, direct, bridged);
    const conc = await interleaved(4, concurrent, direct, bridged);
    const seen = watch.stop();
    const tps = (runs) => runs.reduce((a, r) => a + r.chunks, 0) / (runs.reduce((a, r) => a + r.ms, 0) / 1000);
    const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
    const rows = [
      ['1-token chat latency p50 (ms)', pct(lat.d, 0.5), pct(lat.b, 0.5), pct(lat.b, 0.5) / pct(lat.d, 0.5)],
      ['1-token chat latency p99 (ms)', pct(lat.d, 0.99), pct(lat.b, 0.99), pct(lat.b, 0.99) / pct(lat.d, 0.99)],
      ['1 stream, tokens/s', tps(single.d), tps(single.b), tps(single.b) / tps(single.d)],
      [`${CONCURRENCY} streams, tokens/s (sum)`, mean(conc.d), mean(conc.b), mean(conc.b) / mean(conc.d)],
    ];
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
    const lines = [
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — engine bridge: ${machine()} — commit ${commit}`,
      '',
      `One llama-server (synthetic bench preset, ~0.5B, Q8_0) standing in for FastFlowLM, asked on its TCP port ` +
        `and through \`zest engine-bridge\`'s UNIX socket; ${ROUNDS} latency rounds, ${STREAM_TOKENS * 2}-token ` +
        `single streams ×6, ${CONCURRENCY}×${STREAM_TOKENS}-token concurrent ×4, interleaved.`,
      '',
      '| metric | TCP direct | through the bridge | ratio bridge/direct |',
      '|---|---:|---:|---:|',
      ...rows.map(([name, d, b, r]) => `| ${name} | ${d.toFixed(1)} | ${b.toFixed(1)} | ${r.toFixed(3)} |`),
      '',
      '| every run, in order | TCP direct | through the bridge |',
      '|---|---|---|',
      `| 1 stream, tokens/s | ${everyRun(single.d.map((r) => r.chunks / (r.ms / 1000)))} | ${everyRun(single.b.map((r) => r.chunks / (r.ms / 1000)))} |`,
      `| ${CONCURRENCY} streams, tokens/s (sum) | ${everyRun(conc.d)} | ${everyRun(conc.b)} |`,
    ];
    const ratio = (name) => rows.find((r) => r[0] === name)[3].toFixed(3);
    appendResults(lines, {
      // The latencies were measured request by request: their rounds are four consecutive quarters.
      verdict: verdict(seen, {
        'TCP 1-token latency': roundMedians(lat.d, 4),
        'TCP 1 stream': single.d.map((r) => r.chunks / (r.ms / 1000)),
        [`TCP ${CONCURRENCY} streams`]: conc.d,
      }),
      current: [
        { measure: 'engine bridge: 1-token latency p50, bridge / direct TCP', value: ratio('1-token chat latency p50 (ms)'), target: '' },
        { measure: 'engine bridge: 1 stream tokens/s, bridge / direct TCP', value: ratio('1 stream, tokens/s'), target: '' },
        { measure: `engine bridge: ${CONCURRENCY} streams tokens/s, bridge / direct TCP`, value: ratio(`${CONCURRENCY} streams, tokens/s (sum)`), target: '' },
      ],
    });
  } finally {
    bridge?.kill('SIGTERM');
    await zest.stop();
    zest.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
