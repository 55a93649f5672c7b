// Test harness: starts the real zest binary (which starts the real
// llama-server) on synthetic models in a temporary ZEST_HOME, and gives
// tests small helpers for HTTP, SSE and process inspection.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// ZEST_BIN lets a developer test a binary from another build directory.
export const zestBin = process.env.ZEST_BIN ?? path.join(repo, 'build/zest');
const makeModelBin = process.env.ZEST_MAKE_MODEL_BIN ?? path.join(repo, 'build/zest-make-model');

// Synthetic models are written once per test process into a shared cache.
const modelCache = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-test-models-'));
process.on('exit', () => fs.rmSync(modelCache, { recursive: true, force: true }));

export function syntheticModel(preset = 'tiny', args = []) {
  const key = [preset, ...args].join('_').replace(/[^\w.-]/g, '');
  const file = path.join(modelCache, `${key}.gguf`);
  if (!fs.existsSync(file)) {
    execFileSync(makeModelBin, ['--preset', preset, ...args, '--out', file], { stdio: 'pipe' });
  }
  return file;
}

// A synthetic whisper.cpp speech model (zest-make-model --arch whisper),
// written once: {file, words}, where `words` is what it says for each 30 s
// window of any audio (its decoder follows a script chosen by the seed).
let whisperModel = null;
export function syntheticWhisper() {
  if (whisperModel) return whisperModel;
  const file = path.join(modelCache, 'whisper.bin');
  const out = execFileSync(makeModelBin, ['--arch', 'whisper', '--out', file], { stdio: 'pipe' }).toString();
  const words = /window of any audio to "([^"]*)"/.exec(out)?.[1];
  if (!words) throw new Error(`zest-make-model did not say its script: ${out}`);
  whisperModel = { file, words: words.trim() };
  return whisperModel;
}

// A synthetic speech-out model (zest-make-model --arch tts): an
// OuteTTS-0.2-style backbone and its WavTokenizer vocoder beside it,
// written once: {model, vocoder, standInVocoder}. zest serves this pair on
// two llama-servers (the OuteTTS route); the engine rootfs's llama-tts (the
// libmtmd rewrite) refuses it. `standInVocoder` is the same vocoder with its
// general.architecture renamed (same length, so the file stays valid), which
// zest hands to llama-tts like a Qwen3-TTS or Pocket TTS codec: the tests of
// the llama-tts path speak with it through the stand-in (fake_llama_tts.mjs).
let ttsModel = null;
export function syntheticTts() {
  if (ttsModel) return ttsModel;
  const model = path.join(modelCache, 'tts.gguf');
  execFileSync(makeModelBin, ['--arch', 'tts', '--out', model], { stdio: 'pipe' });
  const vocoder = path.join(modelCache, 'tts.vocoder.gguf');
  if (!fs.existsSync(vocoder)) throw new Error(`zest-make-model wrote no ${vocoder}`);
  const bytes = fs.readFileSync(vocoder);
  const key = bytes.indexOf('general.architecture');
  const value = key + 'general.architecture'.length + 4 + 8;  // type (u32), length (u64)
  if (key < 0 || bytes.toString('latin1', value, value + 16) !== 'wavtokenizer-dec') {
    throw new Error(`${vocoder}: no wavtokenizer-dec architecture where expected`);
  }
  bytes.write('qwen3tts-standin', value, 'latin1');
  const standInVocoder = path.join(modelCache, 'tts.standin.vocoder.gguf');
  fs.writeFileSync(standInVocoder, bytes);
  ttsModel = { model, vocoder, standInVocoder };
  return ttsModel;
}

// A synthetic vision model (zest-make-model --preset tiny --mmproj-out):
// {model, mmproj, imageTokens}, written once; `imageTokens` is what the
// tool says one image takes in the prompt (the engine resizes every image
// to the projector's square).
// `args`: more options (e.g. ['--mmproj-width', '1024'] for a projector
// with more weights).
const visionModels = new Map();
export function syntheticVision(args = []) {
  const key = ['vision', ...args].join('_').replace(/[^\w.-]/g, '');
  if (visionModels.has(key)) return visionModels.get(key);
  const model = path.join(modelCache, `${key}.gguf`);
  const mmproj = path.join(modelCache, `${key}.mmproj.gguf`);
  const out = execFileSync(makeModelBin, ['--preset', 'tiny', '--out', model, '--mmproj-out', mmproj, ...args],
    { stdio: 'pipe' }).toString();
  const tokens = Number(/(\d+) image tokens each/.exec(out)?.[1]);
  if (!tokens) throw new Error(`zest-make-model did not say the image tokens: ${out}`);
  visionModels.set(key, { model, mmproj, imageTokens: tokens });
  return visionModels.get(key);
}

// A synthetic target and a draft for speculative decoding (zest-make-model
// --draft-out), written once per preset: {target, draft}. With `chance`, a
// draft that agrees with the target only by chance.
const draftPairs = new Map();
export function syntheticDraftPair(preset = 'tiny', { chance = false } = {}) {
  const key = `${preset}${chance ? '-chance' : ''}`;
  if (draftPairs.has(key)) return draftPairs.get(key);
  const target = path.join(modelCache, `pair-${key}.gguf`);
  const draft = path.join(modelCache, `pair-${key}.draft.gguf`);
  execFileSync(makeModelBin, ['--preset', preset, '--out', target, '--draft-out', draft,
    ...(chance ? ['--draft-chance'] : [])], { stdio: 'pipe' });
  draftPairs.set(key, { target, draft });
  return draftPairs.get(key);
}

// The sample speech Debian's whisper.cpp-tools ships (mono 16 kHz WAV,
// 53.37 s), from the engine rootfs `make engines` provisions, or the host.
export function sampleSpeech() {
  const rel = 'usr/share/sounds/debian/samples/en-Wikipedia-Ignore_All_Rules.wav';
  const roots = [process.env.ZEST_ENGINE_ROOTFS, '/var/cache/zest/engines/debian-sid',
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'zest/engines/debian-sid'), '/'];
  for (const root of roots.filter(Boolean)) {
    const file = path.join(root, rel);
    if (fs.existsSync(file)) return file;
  }
  throw new Error('no sample WAV: run `make engines` (it installs whisper.cpp-tools)');
}

// A temporary ZEST_HOME whose models/ holds the given models, by name: a
// preset ('tiny'), a path ending in .gguf, or {preset, args} for
// zest-make-model, 'whisper' (a synthetic speech model), 'outetts' (a
// synthetic OuteTTS speech-out model and its WavTokenizer vocoder,
// name.vocoder.gguf), 'tts' (the same backbone with a vocoder zest gives to
// llama-tts: the stand-in's tests) or 'vision' (a
// synthetic model and its projector, name.mmproj.gguf; {vision: [options]}
// with more zest-make-model options); `config`, the
// text of its config.toml.
export function makeHome(models = { tiny: 'tiny' }, { config } = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-test-home-'));
  fs.mkdirSync(path.join(home, 'models'));
  if (config) fs.writeFileSync(path.join(home, 'config.toml'), config);
  for (const [name, spec] of Object.entries(models)) {
    if (spec === 'whisper') {  // a speech model: name.bin
      fs.copyFileSync(syntheticWhisper().file, path.join(home, 'models', `${name}.bin`));
      continue;
    }
    if (spec === 'tts' || spec === 'outetts') {  // a speech-out model: name.gguf and name.vocoder.gguf
      const files = syntheticTts();
      fs.copyFileSync(files.model, path.join(home, 'models', `${name}.gguf`));
      fs.copyFileSync(spec === 'tts' ? files.standInVocoder : files.vocoder,
        path.join(home, 'models', `${name}.vocoder.gguf`));
      continue;
    }
    if (spec === 'vision' || spec?.vision) {  // 'vision', or {vision: [zest-make-model options]}
      const files = syntheticVision(spec === 'vision' ? [] : spec.vision);
      fs.copyFileSync(files.model, path.join(home, 'models', `${name}.gguf`));
      fs.copyFileSync(files.mmproj, path.join(home, 'models', `${name}.mmproj.gguf`));
      continue;
    }
    const dest = path.join(home, 'models', `${name}.gguf`);
    if (typeof spec === 'string' && spec.endsWith('.gguf')) {
      fs.symlinkSync(spec, dest);  // big files (benchmarks) are linked, not copied
    } else {
      fs.copyFileSync(typeof spec === 'object' ? syntheticModel(spec.preset, spec.args) : syntheticModel(spec), dest);
    }
  }
  return home;
}

export class Zest {
  constructor(proc, url, home) {
    this.proc = proc;
    this.url = url;
    this.home = home;
  }

  get pid() { return this.proc.pid; }

  async stop(signal = 'SIGTERM') {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill(signal);
    await exited;
  }

  cleanup() { fs.rmSync(this.home, { recursive: true, force: true }); }

  fetch(p, init = {}) { return fetch(this.url + p, init); }

  async json(p, body, { method = body === undefined ? 'GET' : 'POST', headers = {} } = {}) {
    const res = await this.fetch(p, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let data;
    try { data = JSON.parse(text); } catch { data = text; }
    return { status: res.status, headers: res.headers, data };
  }

  // POSTs a streaming request and collects the SSE events' data fields.
  async stream(p, body, { onEvent } = {}) {
    const res = await this.fetch(p, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const events = [];
    for await (const data of sseData(res)) {
      events.push(data);
      if (onEvent) onEvent(data);
    }
    return { status: res.status, headers: res.headers, events };
  }

  async instances() { return (await this.json('/api/v1/ps')).data.instances; }

  logs() { return this.output.join(''); }
}

// Yields an SSE response's events as they arrive: each event's data fields
// joined (events without data, such as comments, are skipped).
export async function* sseData(res) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer.slice(0, end).split('\n').filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart()).join('\n');
      buffer = buffer.slice(end + 2);
      if (data) yield data;
    }
  }
}

// Starts `zest serve` on `port` (default: a free one); resolves once it is
// listening. `prefix` runs it through another command that execs it (e.g.
// `ip netns exec NS`), so signals still reach zest itself; `bin` is another
// zest binary (the one a package installs).
export async function startZest({ home = makeHome(), args = [], env = {}, port = 0, prefix = [], bin = zestBin } = {}) {
  const argv = [...prefix, bin, 'serve', '--port', String(port), ...args];
  const proc = spawn(argv[0], argv.slice(1), {
    // A short drain: a test that leaves a stream open must not wait 30 s to stop.
    env: { ...process.env, ZEST_HOME: home, ZEST_LOG_LEVEL: 'debug', ZEST_DRAIN_TIMEOUT: '5', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  const url = await new Promise((resolve, reject) => {
    // A bound, not a wait: zest is listening within a second here, but under
    // `stress -c 2` beside other suites one printed nothing for 15 s (make
    // soak, prompt_cache.test.mjs).
    const timer = setTimeout(() => reject(new Error(`zest did not start in 45 s:\n${output.join('')}`)), 45000);
    const onData = (d) => {
      output.push(d.toString());
      const m = /listening on (https?:\/\/[^\s]+)/.exec(output.join(''));
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`zest exited ${code}:\n${output.join('')}`)); });
  });
  const zest = new Zest(proc, url, home);
  zest.output = output;
  if (process.env.ZEST_TEST_VERBOSE) proc.stderr.pipe(process.stderr);
  return zest;
}

// The command line of an engine zest started (`pid`), made to serve on TCP
// 127.0.0.1:`port` the way a user would run llama-server by hand, for
// benchmarks against a direct engine: the same sandbox, but outside a
// network namespace of its own (zest's has no way in but the socket), and
// without binds of paths that are gone (an unloaded engine's directory).
export function engineArgvOnTcp(pid, port) { return argvOnTcp(engineArgv(pid), port); }

// The command line of a running process.
export function engineArgv(pid) {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

// An engine command line (engineArgv) rewritten as engineArgvOnTcp says.
export function argvOnTcp(argv, port) {
  const sep = argv.indexOf('--');
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (i < sep && a === '--unshare-net') continue;
    if (i < sep && (a === '--bind' || a === '--ro-bind') && !fs.existsSync(argv[i + 1])) { i += 2; continue; }
    out.push(a);
  }
  out.splice(out.indexOf('--host'), 2, '--host', '127.0.0.1', '--port', String(port));
  return out;
}

// All live descendants of `pid`, as [{pid, comm}] (from /proc).
export function descendants(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8'); } catch { continue; }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    if (fields[0] === 'Z') continue;
    const ppid = Number(fields[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push({ pid: Number(entry), comm });
  }
  const out = [];
  const walk = (p) => { for (const c of children.get(p) ?? []) { out.push(c); walk(c.pid); } };
  walk(pid);
  return out;
}

export function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch { return false; }
}

export async function waitFor(predicate, { timeout = 5000, interval = 20, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, interval));
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
}

// Waits until zest's admission queue for `model` holds at least `count`
// requests waiting at `priority` (GET /api/v1/stats): the server's own word
// that a request is queued, not a guess from elapsed time.
export async function waitForQueued(zest, model, { count = 1, priority = 'normal', timeout = 10000 } = {}) {
  await waitFor(async () => {
    const { data } = await zest.json('/api/v1/stats');
    const queue = data.queues?.find((q) => q.model === model);
    return (queue?.waiting?.[priority] ?? 0) >= count;
  }, { timeout, what: `${count} ${priority}-priority request(s) queued for '${model}'` });
}

// GET on an engine's own UNIX socket (tests only: to observe the engine).
export function engineGet(socketPath, p) {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: p, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, data: JSON.parse(body) }));
    });
    req.on('error', reject);
    req.end();
  });
}

// POST of a JSON body on an engine's own UNIX socket (tests only: to compare
// zest's answers with the engine's). Its own connection each time.
export function enginePost(socketPath, p, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({
      socketPath, path: p, method: 'POST', agent: false, headers: { 'content-type': 'application/json' },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, data: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

// Opens a streaming chat request and returns once `events` SSE events have
// arrived, with a function that aborts the request (the client going away).
export async function openStream(zest, body, events = 3) {
  const controller = new AbortController();
  const res = await zest.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    signal: controller.signal,
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/\n\n/g) || []).length < events) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { status: res.status, text, reader, abort: () => controller.abort() };
}

// The value when `text` is a JSON object (not an array, a string or a
// number), else null: what a JSON mode (response_format json_object,
// Ollama's format "json") promises.
export function jsonObjectOf(text) {
  let value;
  try { value = JSON.parse(text); } catch { return null; }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
}

// zest-make-model's tiny-quote-brace: not a real model, a synthetic one with
// a designed token preference (src/tools/quote_brace_weights.h). Alone it
// answers `"}`, which is not JSON; only a grammar for a JSON object makes
// its answer one (`{"}":"}"}`), on any seed. So a test of JSON mode on it
// fails when the mode is not applied, where random weights could run one
// string to the end of the context.
export const quoteBracePreset = 'tiny-quote-brace';

// config.toml for models whose streams must last until a test ends them:
// they shift their context when it is full instead of ending the answer
// (with ignore_eos, as chatBody asks, an answer then runs its whole budget).
export const streamsUntilStopped = (...models) =>
  models.map((m) => `[models."${m}"]\nextra_args = ["--context-shift"]\n`).join('');

// Synthetic models pick tokens at random, end-of-generation included, so
// tests that count tokens or chunks ask the engine to ignore it.
export const chatBody = (model, extra = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Say something.' }],
  max_tokens: 8,
  ignore_eos: true,
  ...extra,
});
