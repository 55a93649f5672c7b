// One model across machines with ggml's RPC backend: decode speed of the
// same model all on the head's CPU, split between the head and a
// `zest worker` (the head's memory limit holds about half of it), and all
// on the worker. As root the worker runs in a network namespace of its own
// behind a veth pair; otherwise on loopback. Head and worker share this
// machine's cores, so the split pays for the network hops and the
// contention, and gains no compute: the table says what RPC costs, not
// what a second machine adds. Appends a table to bench/RESULTS.md when the
// machine was quiet (bench/lib/quiet.mjs; the baseline: all on the head,
// its answers).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { canMakeNamespaces, makeNamespace, removeNamespace } from '../tests/lib/netns.mjs';
import { makeHome, repo, startZest, waitFor, zestBin } from '../tests/lib/zest.mjs';
import { machine } from './gateway_overhead.mjs';
import { everyRun } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_RPC_ROUNDS ?? 4);  // answers per setup and pass
const PASSES = 3;  // the setups in turn, so drift spreads over all of them
const TOKENS = 128;
const PORT = 50052;
const MiB = 2 ** 20;

async function startWorker(prefix, host, home) {
  const proc = spawn(prefix[0] ?? zestBin, [...prefix.slice(1), ...(prefix.length ? [zestBin] : []), 'worker',
    '--host', host, '--port', String(PORT)], { env: { ...process.env, ZEST_HOME: home }, stdio: 'ignore' });
  const connects = () => new Promise((resolve) => {
    const socket = net.connect({ host, port: PORT }, () => { socket.destroy(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
  await waitFor(connects, { timeout: 20000, interval: 100, what: 'the worker' });
  return proc;
}

// One non-streamed answer of TOKENS tokens: the engine's decode rate and
// the client's tokens over wall time.
async function generate(zest) {
  const t0 = performance.now();
  const r = await zest.json('/v1/chat/completions', {
    model: 'm', messages: [{ role: 'user', content: 'Write something.' }], max_tokens: TOKENS, ignore_eos: true,
  });
  if (r.status !== 200) throw new Error(`${r.status}: ${JSON.stringify(r.data)}`);
  return { engine: r.data.timings.predicted_per_second, wall: TOKENS / ((performance.now() - t0) / 1000) };
}

async function main() {
  const watch = watchMachine();
  const model = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-rpc-')), 'm.gguf');
  execFileSync(path.join(repo, 'build/zest-make-model'), ['--preset', 'bench', '--out', model], { stdio: 'pipe' });
  const netns = canMakeNamespaces ? makeNamespace(`zest-b${process.pid % 100000}`, `bh${process.pid % 100000}`,
    `bn${process.pid % 100000}`, `10.233.${process.pid % 250}`) : null;
  const host = netns?.address ?? '127.0.0.1';
  const endpoint = `${host}:${PORT}`;
  const workerHome = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-bench-worker-'));
  const heads = [];
  let worker;
  const setups = [];
  try {
    worker = await startWorker(netns?.prefix ?? [], host, workerHome);
    // One head at a time: ggml-rpc-server serves one engine at a time.
    const measure = async (label, config) => {
      const home = makeHome({ m: model });
      fs.writeFileSync(path.join(home, 'config.toml'), `[rpc]\nworkers = ["${endpoint}"]\n${config}`);
      const zest = await startZest({ home, args: ['--ctx-size', '2048', '--parallel', '1'], env: { ZEST_LOG_LEVEL: 'info' } });
      heads.push(zest);
      try {
        await generate(zest);  // loaded and warm
        const [p] = (await zest.json('/api/v1/health')).data.instances.map((i) => i.placement);
        const runs = [];
        for (let round = 0; round < ROUNDS; round++) runs.push(await generate(zest));
        let setup = setups.find((x) => x.label === label);
        if (!setup) setups.push(setup = { label, plan: p, runs: [] });
        setup.runs.push(...runs);
        return p;
      } finally {
        await zest.stop();
      }
    };
    const local = await measure('all on the head', '');
    // A limit that holds the engine and about half of the rest.
    const cpu = local.predicted_bytes.CPU.total;
    const limit = Math.round((24 * MiB + (cpu - 24 * MiB) / 2) / MiB);
    for (let pass = 0; pass < PASSES; pass++) {
      if (pass > 0) await measure('all on the head', '');
      await measure('split: head + worker', `[placement]\nmemory_limit = "${limit}M"\n`);
      await measure('all on the worker', `[models."m"]\ndevice = "rpc:${endpoint}"\n`);
    }
  } finally {
    for (const z of heads) { await z.stop(); z.cleanup(); }  // stopped already: cleanup
    worker?.kill('SIGTERM');
    if (netns) removeNamespace(netns);
    fs.rmSync(workerHome, { recursive: true, force: true });
    fs.rmSync(path.dirname(model), { recursive: true, force: true });
  }
  const seen = watch.stop();
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = mean(setups[0].runs.map((r) => r.engine));
  // The explanation's first clause: "12 layers of 25 on rpc:..., the rest on the CPU".
  const where = (p) => p.explanation.split(';')[0];
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — one model across machines (RPC): ${machine()} — commit ${commit}`,
    '',
    `Model: synthetic bench preset (~0.5B params, Q8_0), context 2048; ${ROUNDS} answers of ${TOKENS} tokens per setup in each of ${PASSES} passes ` +
      'over the setups in turn (one head at a time: a worker serves one engine at a time). ' +
      `Worker: \`zest worker\` ${netns ? 'in a network namespace behind a veth pair' : 'on loopback'}; head and worker share this machine's 2 cores.`,
    '',
    '| setup | placement | decode tokens/s (engine) | tokens/s (client) | vs all on the head |',
    '|---|---|---:|---:|---:|',
    ...setups.map((s) => {
      const engine = mean(s.runs.map((r) => r.engine));
      return `| ${s.label} | ${where(s.plan)} | ${engine.toFixed(1)} | ${mean(s.runs.map((r) => r.wall)).toFixed(1)} | ${(engine / base).toFixed(3)} |`;
    }),
    '',
    'Every answer\'s decode tokens/s (engine), in order:', '',
    ...setups.map((s) => `- ${s.label}: ${everyRun(s.runs.map((r) => r.engine))}`),
  ];
  const vsHead = (label) => (mean(setups.find((s) => s.label === label).runs.map((r) => r.engine)) / base).toFixed(3);
  appendResults(lines, {
    verdict: verdict(seen, { 'all on the head, decode tokens/s': setups[0].runs.map((r) => r.engine) }),
    current: [
      { measure: 'RPC: decode tokens/s, split head + worker / all on the head', value: vsHead('split: head + worker'), target: '' },
      { measure: 'RPC: decode tokens/s, all on the worker / all on the head', value: vsHead('all on the worker'), target: '' },
    ],
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
