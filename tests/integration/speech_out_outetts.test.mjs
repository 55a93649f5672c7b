// Speech out with the REAL engine: an OuteTTS-0.2-style model and its
// WavTokenizer vocoder (zest-make-model --arch outetts, random weights: the
// audio is noise of the right length, rate and format), which zest serves on
// two llama-servers from the engine rootfs (the backbone writes audio codes,
// the vocoder turns them into STFT frames, zest's inverse STFT makes the
// samples), through the official `openai` SDK's audio.speech.create.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { needsEngineBinary } from '../lib/engine_rootfs.mjs';
import { needs } from '../lib/requirements.mjs';
import { alive, chatBody, descendants, engineArgv, makeHome, sampleSpeech, startZest, waitFor } from '../lib/zest.mjs';

const hasFfprobe = (() => {
  try { execFileSync('ffprobe', ['-version'], { stdio: 'ignore' }); return true; } catch { return false; }
})();
// Both are what `make test` installs (make engines; ffmpeg by
// scripts/deps.sh): missing there, they fail (requirements.mjs).
const missing = [needsEngineBinary('usr/bin/llama-server', { orOnPath: true }), needs(hasFfprobe, 'ffprobe (Debian\'s ffmpeg)')].filter(Boolean);
const skip = missing.length > 0 && missing.join('; ');

// What ffprobe says of `bytes`.
function probe(bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-outetts-test-'));
  try {
    const file = path.join(dir, 'audio');
    fs.writeFileSync(file, bytes);
    const j = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file]));
    return { codec: j.streams[0].codec_name, rate: Number(j.streams[0].sample_rate), channels: j.streams[0].channels,
      seconds: Number(j.format.duration ?? j.streams[0].duration) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const SHORT = 'Hello there.';
const LONG = 'Hello there. This sentence is a good deal longer, so the speech it makes lasts longer too.';

describe('speech out (OuteTTS on two real llama-servers, synthetic model)', { skip }, () => {
  let zest;
  let client;
  const speak = async (body) => {
    const res = await client.audio.speech.create({ model: 'voice', voice: 'alloy', input: SHORT, ...body });
    return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };
  before(async () => {
    zest = await startZest({ home: makeHome({ voice: 'outetts', tiny: 'tiny', ears: 'whisper' }) });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test('wav: 24 kHz mono 16-bit, as long as the codes the backbone wrote', async () => {
    const t0 = Date.now();
    const res = await speak({ response_format: 'wav' });
    const ms = Date.now() - t0;
    assert.equal(res.type, 'audio/wav');
    const p = probe(res.bytes);
    assert.equal(p.codec, 'pcm_s16le');
    assert.equal(p.rate, 24000);
    assert.equal(p.channels, 1);
    assert.ok(p.seconds > 0.1, `${p.seconds} s`);
    // 320 samples a code: a whole number of codes.
    const codes = Math.round(p.seconds * 75);
    assert.ok(Math.abs(codes / 75 - p.seconds) < 1e-3, `${p.seconds} s`);
    console.log(`# wav: ${p.seconds.toFixed(2)} s of audio in ${ms} ms (first request: the engines load)`);
  });

  test('mp3 through the sandboxed ffmpeg', async () => {
    const res = await speak({ response_format: 'mp3' });
    assert.equal(res.type, 'audio/mpeg');
    const p = probe(res.bytes);
    assert.equal(p.codec, 'mp3');
    assert.equal(p.rate, 24000);
    assert.ok(p.seconds > 0.1, `${p.seconds} s`);
  });

  test('a text whose token budget overflows the backbone\'s context is a 400 naming the most it takes', async () => {
    const input = LONG.repeat(10);  // 910 characters: a 9175-token budget past an 8192 context
    const e = await speak({ response_format: 'wav', input }).then(() => null, (err) => err);
    assert.ok(e, 'refused');
    assert.equal(e.status, 400, e.message);
    const most = Number(/about (\d+) characters at most/.exec(e.error.message)?.[1]);
    assert.ok(most > 100 && most < input.length, e.error.message);
    // That the limit is no stricter than need be is the unit tests' to
    // show (outetts_engine_test): speaking near it takes the synthetic
    // backbone a minute here.
  });

  test('the audio grows with the input; the real-time factor', async () => {
    const short = probe((await speak({ response_format: 'wav', input: SHORT })).bytes);
    const t0 = Date.now();
    const long = probe((await speak({ response_format: 'wav', input: LONG })).bytes);
    const s = (Date.now() - t0) / 1000;
    assert.ok(long.seconds > short.seconds * 1.5, `${short.seconds} s, then ${long.seconds} s`);
    console.log(`# real-time factor: ${(s / long.seconds).toFixed(3)} (${long.seconds.toFixed(2)} s of audio in ${s.toFixed(2)} s)`);
  });

  test('text to speech to text: whisper hears as much audio as OuteTTS spoke', async () => {
    const spoken = await speak({ response_format: 'wav', input: LONG });
    const seconds = probe(spoken.bytes).seconds;
    const heard = await client.audio.transcriptions.create({
      model: 'ears', file: await toFile(spoken.bytes, 'speech.wav', { type: 'audio/wav' }), response_format: 'verbose_json' });
    assert.ok(Math.abs(heard.duration - seconds) < 0.05, `spoken ${seconds} s, heard ${heard.duration} s`);
    assert.ok(heard.segments.every((seg) => seg.start <= seg.end), JSON.stringify(heard.segments));
  });

  test('speech, chat and transcription at once, each engine within its predicted memory', async () => {
    const [speech, chat, heard] = await Promise.all([
      speak({ response_format: 'wav', input: LONG }),
      zest.json('/v1/chat/completions', chatBody('tiny')),
      client.audio.transcriptions.create({ model: 'ears', file: await toFile(fs.readFileSync(sampleSpeech()), 'sample.wav') }),
    ]);
    assert.ok(probe(speech.bytes).seconds > 0.5);
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    assert.equal(typeof heard.text, 'string');
    const instances = await zest.instances();
    assert.deepEqual(instances.map((i) => i.model).sort(), ['ears', 'tiny', 'voice']);
    for (const i of instances) {
      // The tts-engine's tree holds both llama-servers: the plan counts both.
      const predicted = i.placement.predicted_total_bytes;
      console.log(`# ${i.model}: predicted ${(predicted / 2 ** 20).toFixed(1)} MiB, ` +
                  `measured RSS ${(i.measured_rss_bytes / 2 ** 20).toFixed(1)} MiB`);
      assert.ok(i.measured_rss_bytes <= predicted * 1.25, `${i.model}: ${i.measured_rss_bytes} > 1.25 × ${predicted}`);
    }
  });

  test('the backbone killed mid-request: zest tries it again on a fresh instance, and the client gets its audio', async () => {
    const backbone = () => descendants(zest.pid)
      .find((p) => p.comm === 'llama-server' && engineArgv(p.pid).some((a) => /voice\.gguf$/.test(a)));
    const before = backbone();
    assert.ok(before, 'a backbone llama-server');
    const instance = (await zest.instances()).find((i) => i.model === 'voice' && i.state === 'ready');
    assert.ok(instance?.pid, 'the voice instance, ready');
    // Four times the long text: more codes than the backbone writes before
    // the kill lands (it never ends a turn early: the cap is the budget).
    const pending = speak({ response_format: 'wav', input: LONG.repeat(4) }).then((r) => r, (e) => e);
    await waitFor(async () => (await zest.instances()).find((i) => i.model === 'voice')?.in_flight > 0,
      { timeout: 20000, what: 'the speech request in flight' });
    process.kill(before.pid, 'SIGKILL');
    const outcome = await pending;
    // The tts-engine gives no answer when a llama-server of its own died
    // under a request, as any engine that dies, so zest tries it again on a
    // fresh instance: the client gets its audio.
    assert.ok(!(outcome instanceof Error), `${outcome.status}: ${outcome.message}`);
    assert.ok(probe(outcome.bytes).seconds > 1);
    // The tts-engine exits when a llama-server of its own dies; zest's
    // supervisor sees the instance gone, and the next request loads it anew.
    await waitFor(async () => !(await zest.instances()).some((i) => i.pid === instance.pid),
      { timeout: 10000, what: 'the broken voice instance gone' });
    const again = await speak({ response_format: 'wav' });
    assert.ok(probe(again.bytes).seconds > 0.1);
    await waitFor(() => !alive(before.pid), { timeout: 5000, what: 'the killed backbone reaped' });
  });

  test('the vocoder killed while the backbone writes: the instance goes at once, not when the backbone is done', async () => {
    const vocoder = () => descendants(zest.pid)
      .find((p) => p.comm === 'llama-server' && engineArgv(p.pid).some((a) => /voice\.vocoder\.gguf$/.test(a)));
    await speak({ response_format: 'wav' });  // a ready instance
    const before = vocoder();
    assert.ok(before, 'a vocoder llama-server');
    const instance = (await zest.instances()).find((i) => i.model === 'voice' && i.state === 'ready');
    // The whole budget of a long text (the synthetic backbone never ends a
    // turn early): the backbone is busy long after the vocoder dies.
    const input = LONG.repeat(6);
    const t0 = Date.now();
    const pending = speak({ response_format: 'wav', input }).then((r) => r, (e) => e);
    await waitFor(async () => (await zest.instances()).find((i) => i.model === 'voice')?.in_flight > 0,
      { timeout: 20000, what: 'the speech request in flight' });
    process.kill(before.pid, 'SIGKILL');
    const killed = Date.now();
    // The run busy with the backbone gives up when its sibling dies, and the
    // tts-engine exits; before, it waited for the backbone's whole budget.
    await waitFor(async () => !(await zest.instances()).some((i) => i.pid === instance.pid),
      { timeout: 3000, what: 'the broken voice instance gone while the backbone still had work' });
    const gone = Date.now() - killed;
    const outcome = await pending;
    assert.ok(!(outcome instanceof Error), `${outcome.status}: ${outcome.message}`);
    assert.ok(probe(outcome.bytes).seconds > 1);
    // The retry on a fresh instance spoke the whole budget: what one run of
    // this text takes, well over the time the broken instance lingered.
    const whole = Date.now() - t0;
    console.log(`# instance gone ${gone} ms after the kill; the request took ${whole} ms in all`);
    assert.ok(whole - (killed - t0) > 2 * gone, `gone after ${gone} ms, request ${whole} ms`);
  });

  test('two llama-servers under the tts-engine, none left when zest stops', async () => {
    const servers = () => descendants(zest.pid).filter((p) => p.comm === 'llama-server' &&
      engineArgv(p.pid).some((a) => /voice(\.vocoder)?\.gguf$/.test(a)));
    assert.equal(servers().length, 2, JSON.stringify(descendants(zest.pid)));
    const all = descendants(zest.pid).map((p) => p.pid);
    await zest.stop();
    await waitFor(() => all.every((pid) => !alive(pid)), { timeout: 10000, what: 'no engine process left' });
    zest.cleanup();
    zest = null;
  });
});
