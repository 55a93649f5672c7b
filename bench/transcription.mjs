// Speech-to-text throughput: the same whisper-server (the engine rootfs's),
// on the same synthetic whisper model and audio with the same thread count,
// through zest's POST /v1/audio/transcriptions against its own /inference
// directly, interleaved in one process so machine noise hits both alike.
// Per audio length: median request time each side, audio seconds per wall
// second, the ratio zest/direct (target ≥ 0.98) and the real-time factor
// through zest; and the work zest adds per request (its HTTP parse of the
// upload, a second multipart write, the relay through the engine bridge),
// as CPU time and as the wall time of an upload refused right after its
// parse. Appends a table to bench/RESULTS.md when the machine was quiet
// (bench/lib/quiet.mjs; the baseline: whisper-server asked directly, each
// round's median, per audio length).
//
// The direct engine is started with the very command line zest used for its
// whisper-server's sandbox (the inner bwrap: rootfs read-only, own PID
// namespace, the model file bound read-only, `-t N` from zest's placement),
// outside zest's network namespace and listening on a port of its own.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { descendants, engineArgv, makeHome, repo, sampleSpeech, startZest, waitFor } from '../tests/lib/zest.mjs';
import { cpuSeconds, machine, pct } from './gateway_overhead.mjs';
import { everyRun, roundMedians } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const ROUNDS = Number(process.env.BENCH_SPEECH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_SPEECH_PER_ROUND ?? 4);
// Five minutes take 2.5-4.5 s a request here: 3 a round keeps the run under 4 min.
const PER_ROUND_LONG = Number(process.env.BENCH_SPEECH_PER_ROUND_LONG ?? 3);
const LONG_SECONDS = 300;

// The WAV's format and samples: the "fmt " and "data" chunks found by
// walking the RIFF chunk list (not by searching for the bytes "data").
function readWav(buf) {
  if (buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE') throw new Error('not a WAV');
  let fmt = null;
  for (let at = 12; at + 8 <= buf.length;) {
    const id = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    if (id === 'fmt ') fmt = buf.subarray(at, at + 8 + size);
    if (id === 'data') {
      if (!fmt) throw new Error('WAV data before its fmt chunk');
      const byteRate = fmt.readUInt32LE(8 + 8);
      const samples = buf.subarray(at + 8, at + 8 + size);
      return { head: buf.subarray(0, at), samples, byteRate, seconds: samples.length / byteRate };
    }
    at += 8 + size + (size & 1);  // chunks are padded to an even length
  }
  throw new Error('WAV without a data chunk');
}

// A valid WAV of `seconds` of audio: the sample's samples repeated, cut to
// length, with the RIFF and data sizes made right.
function wavOfLength(wav, seconds) {
  const bytes = Math.round(seconds * wav.byteRate) & ~1;
  const copies = Math.ceil(bytes / wav.samples.length);
  const samples = Buffer.concat(Array(copies).fill(wav.samples)).subarray(0, bytes);
  const header = Buffer.alloc(8);
  header.write('data', 0, 'latin1');
  header.writeUInt32LE(samples.length, 4);
  const out = Buffer.concat([wav.head, header, samples]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

// whisper-server's own sandbox as zest started it: the bwrap whose command
// line ends in whisper-server and does not start the bridge.
function whisperSandboxArgv(instancePid) {
  for (const p of descendants(instancePid)) {
    if (p.comm !== 'bwrap') continue;
    const argv = engineArgv(p.pid);
    if (!argv.includes('engine-bridge') && argv.includes('/usr/bin/whisper-server')) return argv;
  }
  throw new Error(`no whisper-server sandbox under pid ${instancePid}`);
}

async function startDirect(argv) {
  const port = 19000 + Math.floor(Math.random() * 1000);
  const cmd = [...argv];
  cmd[cmd.lastIndexOf('--port') + 1] = String(port);
  const proc = spawn(cmd[0], cmd.slice(1), { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    try { return (await fetch(`${url}/health`)).status === 200; } catch { return false; }
  }, { timeout: 60000, interval: 50, what: 'the direct whisper-server' });
  return { proc, url, threads: cmd[cmd.lastIndexOf('-t') + 1] };
}

// zest's own serial work before the engine sees a byte: the upload read,
// parsed and checked, then refused for a bad response_format (the last
// field it checks). Returns the wall time in ms.
async function refusedAfterParse(zestSide, audio) {
  const form = new FormData();
  form.append('file', new Blob([audio.wav], { type: 'audio/wav' }), 'speech.wav');
  form.append('model', 'ears');
  form.append('response_format', 'xml');
  const t0 = performance.now();
  const res = await fetch(zestSide.url, { method: 'POST', body: form });
  await res.text();
  if (res.status !== 400) throw new Error(`a bad response_format answered ${res.status}`);
  return performance.now() - t0;
}

// One request; returns its wall time in ms. Each side is asked what it is
// asked in practice: zest in OpenAI's shape, whisper-server in the shape
// zest's adapter uses (verbose_json, no language probabilities).
async function transcribe(side, audio) {
  const form = new FormData();
  form.append('file', new Blob([audio.wav], { type: 'audio/wav' }), 'speech.wav');
  if (side.zest) {
    form.append('model', 'ears');
    form.append('response_format', 'json');
  } else {
    form.append('response_format', 'verbose_json');
    form.append('no_language_probabilities', 'true');
  }
  const t0 = performance.now();
  const res = await fetch(side.url, { method: 'POST', body: form });
  const body = await res.json();
  const ms = performance.now() - t0;
  if (res.status !== 200 || typeof body.text !== 'string' || !body.text.trim()) {
    throw new Error(`${side.name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  return ms;
}

// `audio.perRound` pairs of requests, one each side back to back, which side
// goes first alternating, so that a pair sees the same machine (this one is
// shared: a compile next door slows a 4 s request by a second); the CPU of
// zest's gateway and bridge processes counted over its requests.
async function round(i, audio, zestSide, directSide, pids, acc) {
  for (let n = 0; n < audio.perRound; n++) {
    const pair = {};
    for (const side of (i * audio.perRound + n) % 2 ? [zestSide, directSide] : [directSide, zestSide]) {
      const gateway0 = cpuSeconds(pids.gateway);
      const bridge0 = cpuSeconds(pids.bridge);
      pair[side.name] = await transcribe(side, audio);
      acc[side.name].push(pair[side.name]);
      if (!side.zest) continue;
      acc.gatewayCpu += cpuSeconds(pids.gateway) - gateway0;
      acc.bridgeCpu += cpuSeconds(pids.bridge) - bridge0;
    }
    acc.pairRatios.push(pair.direct / pair.zest);  // zest's throughput over direct's
  }
}

// zest's own time per transcription, from its access log lines.
const loggedMs = (logs) => [...logs.matchAll(/POST \/v1\/audio\/transcriptions 200 ([\d.]+) ms/g)].map((m) => Number(m[1]));

async function main() {
  const watch = watchMachine();
  const sample = readWav(fs.readFileSync(sampleSpeech()));
  const audios = [
    { seconds: sample.seconds, wav: wavOfLength(sample, sample.seconds), perRound: PER_ROUND },
    { seconds: LONG_SECONDS, wav: wavOfLength(sample, LONG_SECONDS), perRound: PER_ROUND_LONG },
  ];
  const zest = await startZest({ home: makeHome({ ears: 'whisper' }), env: { ZEST_LOG_LEVEL: 'info' } });
  let direct;
  try {
    const zestSide = { name: 'zest', zest: true, url: `${zest.url}/v1/audio/transcriptions` };
    await transcribe(zestSide, audios[0]);  // loads the engine
    const [instance] = await zest.instances();
    const bridge = descendants(instance.pid).find((p) => p.comm === 'zest');
    direct = await startDirect(whisperSandboxArgv(instance.pid));
    const directSide = { name: 'direct', zest: false, url: `${direct.url}/inference` };
    for (const audio of audios) for (const side of [zestSide, directSide]) await transcribe(side, audio);  // warm both

    const results = [];
    const load0 = os.loadavg()[0];
    for (const audio of audios) {
      const acc = { zest: [], direct: [], pairRatios: [], gatewayCpu: 0, bridgeCpu: 0 };
      const logged0 = loggedMs(zest.logs()).length;
      for (let i = 0; i < ROUNDS; i++) await round(i, audio, zestSide, directSide, { gateway: zest.pid, bridge: bridge.pid }, acc);
      // The access log line is written as the answer goes out: wait for the last.
      await waitFor(() => loggedMs(zest.logs()).length >= logged0 + acc.zest.length, { timeout: 5000, what: 'zest\'s log lines' });
      const refused = [];
      for (let n = 0; n < 5; n++) refused.push(await refusedAfterParse(zestSide, audio));
      results.push({ audio, ...acc, refused, logged: loggedMs(zest.logs()).slice(logged0) });
      console.error(`${audio.seconds.toFixed(0)} s: direct ${acc.direct.map((x) => x.toFixed(0))} ms, zest ${acc.zest.map((x) => x.toFixed(0))} ms`);
    }

    const seen = watch.stop();
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
    const f = (x, d = 1) => x.toFixed(d);
    const label = (s) => (s < 100 ? `${f(s, 2)} s (Debian's sample)` : `${f(s / 60, 0)} min (the sample repeated)`);
    const rows = results.map((r) => {
      const d = pct(r.direct, 0.5);
      const z = pct(r.zest, 0.5);
      const s = r.audio.seconds;
      return `| ${label(s)} | ${f(d)} | ${f(z)} | ${f(s / (d / 1000))} | ${f(s / (z / 1000))} | ${f(d / z, 3)} | ` +
        `${f(pct(r.pairRatios, 0.5), 3)} | ${f(z / 1000 / s, 4)} | ≥ 0.98 |`;
    });
    const extra = results.map((r) => {
      const mib = r.audio.wav.length / 2 ** 20;
      const perRequest = (cpu) => f(1000 * cpu / r.zest.length, 0);
      const outside = r.zest.map((ms, k) => ms - r.logged[k]);  // upload before zest's clock starts, answer after
      return `| ${label(r.audio.seconds)} | ${f(mib, 2)} | ${f(pct(r.logged, 0.5))} | ${f(pct(outside, 0.5))} | ` +
        `${perRequest(r.gatewayCpu)} / ${perRequest(r.bridgeCpu)} | ${f(pct(r.refused, 0.5))} |`;
    });
    const lines = [
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — speech to text, zest vs whisper-server: ${machine()} — commit ${commit}`, '',
      `Synthetic whisper model (zest-make-model --arch whisper), the engine rootfs's whisper-server with zest's own sandbox ` +
        `command line on both sides (\`-t ${direct.threads}\`), one request at a time; ${ROUNDS} rounds × ${PER_ROUND} (53 s) or ${PER_ROUND_LONG} (5 min) ` +
        `pairs of requests (one each side, back to back, the first side alternating), after a warm-up on both; ` +
        `load average ${f(load0, 2)} → ${f(os.loadavg()[0], 2)} (the machine is shared). zest asked for json in OpenAI's multipart shape; ` +
        'whisper-server\'s /inference for verbose_json, as zest\'s adapter asks it.', '',
      '| audio | direct median (ms) | zest median (ms) | direct audio s / wall s | zest audio s / wall s | ratio zest/direct (medians) | ratio, median of pairs | real-time factor through zest | target |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...rows,
      '',
      'zest\'s own work per request: it parses the upload, writes it again as whisper-server\'s form and relays it through the engine bridge.', '',
      '| audio | upload (MiB) | zest\'s logged request time, median (ms) | client time − logged, median (ms) | zest CPU per request, gateway / bridge (ms) | upload read and parsed, then refused, median (ms) |',
      '|---|---:|---:|---:|---:|---:|',
      ...extra,
      '',
      'Every pair in order, ratio zest/direct (direct ms / zest ms):', '',
      ...results.map((r) => `- ${label(r.audio.seconds)}: ${everyRun(r.pairRatios, 3)}`),
    ];
    const short = (r) => (r.audio.seconds < 100 ? '53 s' : '5 min');
    appendResults(lines, {
      verdict: verdict(seen, Object.fromEntries(results.map((r) => [`whisper-server direct, ${short(r)}`, roundMedians(r.direct, ROUNDS)]))),
      current: results.map((r) => ({
        measure: `speech to text: audio s / wall s, zest / whisper-server direct, ${short(r)} of audio`,
        value: f(pct(r.direct, 0.5) / pct(r.zest, 0.5), 3), target: '≥ 0.98',
      })),
    });
  } finally {
    if (direct) direct.proc.kill('SIGTERM');
    await zest.stop();
    zest.cleanup();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
