// Speech out through zest with the official `openai` SDK, spoken by a
// STAND-IN llama-tts (tests/lib/fake_llama_tts.mjs: the engine rootfs's
// llama-tts speaks only with Qwen3-TTS and Pocket TTS, and no synthetic
// model of those exists yet) on a synthetic OuteTTS pair (zest-make-model
// --arch outetts: a backbone and NAME.vocoder.gguf). What is real: zest's
// speech-out model detection, placement, llama-tts's command line in the
// engine sandbox, `zest tts-engine` running it once per request, admission,
// the relay, the formats made by the sandboxed ffmpeg, supervision, metrics
// and errors in OpenAI's shape; and, last, the real llama-tts refusing the
// OuteTTS pair, answered as a clean 5xx.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { startFakeHub } from '../lib/fake_hub.mjs';
import { needsEngineBinary } from '../lib/engine_rootfs.mjs';
import { writeFakeLlamaTts, writeStandInCodec } from '../lib/fake_llama_tts.mjs';
import { needs } from '../lib/requirements.mjs';
import { descendants, engineArgv, makeHome, sseData, startZest, syntheticTts, waitFor, zestBin } from '../lib/zest.mjs';

// ffprobe reads every answer's audio; `make test` installs it (ffmpeg,
// scripts/deps.sh), so there its absence fails (requirements.mjs).
const hasFfprobe = (() => {
  try { execFileSync('ffprobe', ['-version'], { stdio: 'ignore' }); return true; } catch { return false; }
})();
const skip = needs(hasFfprobe, 'ffprobe (Debian\'s ffmpeg)');

// What ffprobe says of `bytes` (read as `args` say, for raw pcm).
function probe(bytes, args = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-speech-test-'));
  try {
    const file = path.join(dir, 'audio');
    fs.writeFileSync(file, bytes);
    const out = execFileSync('ffprobe', ['-v', 'error', ...args, '-show_streams', '-show_format', '-of', 'json', file]);
    const j = JSON.parse(out);
    return { codec: j.streams[0].codec_name, rate: Number(j.streams[0].sample_rate), channels: j.streams[0].channels,
      seconds: Number(j.format.duration ?? j.streams[0].duration) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const PCM = ['-f', 's16le', '-ar', '24000', '-ac', '1'];
const SHORT = 'Hello there.';
const LONG = 'Hello there. This sentence is a good deal longer, so the speech it makes lasts longer too.';

describe('speech out (STAND-IN llama-tts, synthetic model)', { skip }, () => {
  let zest;
  let client;
  const speak = async (body) => {
    const res = await client.audio.speech.create({ model: 'voice', voice: 'alloy', input: SHORT, ...body });
    return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };
  let dir;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-fake-tts-'));
    zest = await startZest({ home: makeHome({ voice: 'tts', ears: 'whisper', tiny: 'tiny' }),
      env: { ZEST_LLAMA_TTS: writeFakeLlamaTts(dir) } });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => { await zest.stop(); zest.cleanup(); fs.rmSync(dir, { recursive: true, force: true }); });

  test('a backbone with NAME.vocoder.gguf beside it is a tts model; the vocoder is no model', async () => {
    const list = await client.models.list();
    const voice = list.data.find((m) => m.id === 'voice');
    assert.equal(voice?.type, 'tts', JSON.stringify(list.data));
    assert.match(voice.vocoder, /voice\.vocoder\.gguf$/);
    assert.ok(!list.data.some((m) => /vocoder/.test(m.id)), list.data.map((m) => m.id).join());
    const show = (await zest.json('/api/v1/show', { model: 'voice' })).data;
    assert.equal(show.details.type, 'tts');
    const listed = execFileSync(zestBin, ['list'], { env: { ...process.env, ZEST_HOST: zest.url } }).toString();
    assert.match(listed, /^voice\s.*\btts\b/m, listed);
    const voices = (await zest.json('/v1/audio/voices')).data.data.map((v) => v.id);
    assert.ok(voices.includes('alloy') && voices.includes('verse') && voices.length === 11, voices.join());
  });

  test('every format decodes, with its content type, as 24 kHz mono audio', async () => {
    const expected = {
      mp3: ['audio/mpeg', 'mp3'], opus: ['audio/ogg', 'opus'], aac: ['audio/aac', 'aac'],
      flac: ['audio/flac', 'flac'], wav: ['audio/wav', 'pcm_s16le'], pcm: ['audio/pcm', 'pcm_s16le'],
    };
    const started = Date.now();
    for (const [format, [type, codec]] of Object.entries(expected)) {
      const t0 = Date.now();
      const res = await speak({ response_format: format });
      assert.equal(res.type, type, format);
      const p = probe(res.bytes, format === 'pcm' ? PCM : []);
      assert.equal(p.codec, codec, format);
      assert.equal(p.rate, format === 'opus' ? 48000 : 24000, `${format}: ${p.rate} Hz`);  // Opus decodes at 48 kHz
      assert.equal(p.channels, 1, format);
      assert.ok(p.seconds > 0.1, `${format}: ${p.seconds} s`);
      console.log(`# ${format}: ${p.seconds.toFixed(2)} s of audio in ${Date.now() - t0} ms`);
    }
    console.log(`# six formats in ${Date.now() - started} ms`);
  });

  test('the audio grows with the input; speed shortens it', async () => {
    const short = probe((await speak({ response_format: 'wav', input: SHORT })).bytes);
    const long = probe((await speak({ response_format: 'wav', input: LONG })).bytes);
    assert.ok(long.seconds > short.seconds * 1.5, `${short.seconds} s, then ${long.seconds} s`);
    const fast = probe((await speak({ response_format: 'wav', input: LONG, speed: 2 })).bytes);
    assert.ok(Math.abs(fast.seconds - long.seconds / 2) < 0.2, `${long.seconds} s at 2x: ${fast.seconds} s`);
  });

  test('streamed as audio and as SSE events', async () => {
    const audio = await speak({ response_format: 'flac', stream_format: 'audio' });
    assert.equal(probe(audio.bytes).codec, 'flac');
    const res = await zest.fetch('/v1/audio/speech', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'voice', input: SHORT, voice: 'nova', response_format: 'wav', stream_format: 'sse' }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const events = [];
    for await (const data of sseData(res)) events.push(JSON.parse(data));
    const deltas = events.filter((e) => e.type === 'speech.audio.delta');
    assert.ok(deltas.length >= 1);
    const done = events.at(-1);
    assert.equal(done.type, 'speech.audio.done');
    assert.equal(done.usage.input_characters, SHORT.length);
    const wav = Buffer.concat(deltas.map((e) => Buffer.from(e.audio, 'base64')));
    const p = probe(wav);
    assert.equal(p.codec, 'pcm_s16le');
    assert.ok(Math.abs(p.seconds - done.usage.audio_seconds) < 0.05, `${p.seconds} vs ${done.usage.audio_seconds}`);
  });

  test('bad requests are 400s in OpenAI\'s shape', async () => {
    const cases = [
      [{ input: '' }, 'input', /input is empty/],
      [{ input: 'x'.repeat(4097) }, 'input', /4097 characters; at most 4096/],
      [{ voice: 'bob' }, 'voice', /unknown voice 'bob'/],
      [{ response_format: 'ogg' }, 'response_format', /mp3, opus, aac, flac, wav, pcm/],
      [{ speed: 9 }, 'speed', /0\.25 to 4/],
      [{ model: 'tiny' }, 'model', /not a text-to-speech model/],
      [{ model: 'ears' }, 'model', /not a text-to-speech model/],
    ];
    for (const [body, param, message] of cases) {
      await assert.rejects(speak(body), (e) => {
        assert.equal(e.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${e.message}`);
        assert.equal(e.error.type, 'invalid_request_error');
        assert.equal(e.error.param, param);
        assert.match(e.error.message, message);
        return true;
      });
    }
    // And a chat request for the speech-out model.
    const chat = await zest.json('/v1/chat/completions', { model: 'voice', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.status, 400);
    assert.match(chat.data.error.message, /text-to-speech model; use \/v1\/audio\/speech/);
  });

  test('text to speech to text, through zest', async () => {
    const spoken = await speak({ response_format: 'wav', input: LONG });
    const seconds = probe(spoken.bytes).seconds;
    const heard = await client.audio.transcriptions.create({
      file: await toFile(spoken.bytes, 'speech.wav', { type: 'audio/wav' }), model: 'ears', response_format: 'verbose_json',
    });
    assert.ok(Math.abs(heard.duration - seconds) < 0.05, `spoken ${seconds} s, heard ${heard.duration} s`);
    assert.ok(heard.segments.length >= 1 && heard.segments.every((s) => s.start <= s.end), JSON.stringify(heard.segments));
    assert.equal(typeof heard.text, 'string');
    // A 24 kHz mp3 goes the same way (zest converts it for whisper).
    const mp3 = await speak({ response_format: 'mp3', input: LONG });
    const again = await client.audio.transcriptions.create({ file: await toFile(mp3.bytes, 'speech.mp3'), model: 'ears', response_format: 'verbose_json' });
    assert.ok(Math.abs(again.duration - seconds) < 0.2, `mp3: ${again.duration} s`);
  });

  test('metrics count the audio spoken, the characters and the real-time factor', async () => {
    const text = await (await zest.fetch('/metrics')).text();
    const seconds = Number(/^zest_speech_seconds_total\{model="voice"\} ([\d.e+-]+)$/m.exec(text)?.[1]);
    const chars = Number(/^zest_speech_characters_total\{model="voice"\} ([\d.e+-]+)$/m.exec(text)?.[1]);
    assert.ok(seconds > 0, text.split('\n').filter((l) => /speech/.test(l)).join('\n'));
    assert.ok(chars >= SHORT.length);
    const sum = Number(/^zest_speech_realtime_factor_sum\{model="voice"\} ([\d.e+-]+)$/m.exec(text)?.[1]);
    const count = Number(/^zest_speech_realtime_factor_count\{model="voice"\} ([\d.e+-]+)$/m.exec(text)?.[1]);
    assert.ok(count > 0 && sum > 0);
    console.log(`# real-time factor: ${(sum / count).toFixed(3)} over ${count} requests, ${seconds.toFixed(1)} s of audio`);
    assert.match(zest.logs(), /speech: \d+ characters, [\d.]+ s of audio as wav/);
  });

  test('llama-tts killed mid-request: a 5xx in OpenAI\'s shape, no process or file left', async () => {
    const server = () => descendants(zest.pid).find((p) => engineArgv(p.pid).includes('tts-engine'));
    const runs = () => descendants(zest.pid).filter((p) => p.comm === 'llama-tts');
    const pending = speak({ response_format: 'wav', input: LONG.repeat(8) }).then(() => null, (e) => e);
    await waitFor(() => runs().length > 0, { timeout: 20000, what: 'llama-tts running' });
    const argv = engineArgv(server().pid);
    const workDir = argv[argv.indexOf('--work-dir') + 1];
    // llama-tts may write runs/ only: the tts-engine's socket is a level up.
    assert.equal(path.basename(workDir), 'runs');
    assert.ok(fs.existsSync(path.join(path.dirname(workDir), 'engine.sock')), 'the socket beside runs/');
    const inFlight = fs.readdirSync(workDir).filter((n) => n.startsWith('tts-'));
    assert.equal(inFlight.length, 1, 'the run has its private directory');
    assert.equal(fs.statSync(path.join(workDir, inFlight[0])).mode & 0o777, 0o700);
    for (const p of runs()) process.kill(p.pid, 'SIGKILL');
    // llama-tts runs once per request: a run killed is not tried again, the
    // client gets a clean 503 in OpenAI's shape.
    const e = await pending;
    assert.ok(e, 'the request failed');
    assert.equal(e.status, 503, e.message);
    assert.match(e.error.message, /^the speech engine failed: llama-tts was killed \(exited with code 137\)$/);
    await waitFor(() => runs().length === 0, { what: 'no llama-tts left' });
    assert.deepEqual(fs.readdirSync(workDir).filter((n) => n.startsWith('tts-')), [], 'no run directory left');
    // The engine serves the next request.
    assert.ok(probe((await speak({ response_format: 'wav' })).bytes).seconds > 0);
  });

  test('a client that goes away stops llama-tts', async () => {
    const runs = () => descendants(zest.pid).filter((p) => p.comm === 'llama-tts');
    const controller = new AbortController();
    const pending = client.audio.speech.create({ model: 'voice', voice: 'alloy', input: LONG.repeat(8), response_format: 'wav' },
      { signal: controller.signal }).catch((e) => e);
    await waitFor(() => runs().length > 0, { timeout: 20000, what: 'llama-tts running' });
    controller.abort();
    await pending;
    await waitFor(() => runs().length === 0, { timeout: 5000, what: 'llama-tts stopped' });
  });
});

describe('speech out: a Qwen3-TTS-style repo pulled from the STAND-IN hub, spoken by the STAND-IN llama-tts', { skip }, () => {
  // The layout of ggml-org's speech-out repos for llama-tts: the backbone,
  // and its codec as an mmproj (one that writes audio). Here the backbone
  // is the synthetic one and the codec the STAND-IN's (writeStandInCodec),
  // spoken by the stand-in llama-tts; the pull, the pairing, the typing and
  // the route are zest's own.
  const REPO = 'test-org/Talker-TTS-GGUF';
  let hub;
  let zest;
  let dir;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-tts-pull-'));
    const codec = writeStandInCodec(path.join(dir, 'codec.gguf'));
    hub = await startFakeHub({ repos: { [REPO]: { files: {
      'Talker-Q8_0.gguf': fs.readFileSync(syntheticTts().model),
      'mmproj-Talker-f16.gguf': fs.readFileSync(codec),
    } } } });
    zest = await startZest({ home: makeHome({}), env: {
      HF_ENDPOINT: hub.url, HF_HUB_CACHE: path.join(dir, 'hub'), ZEST_LLAMA_TTS: writeFakeLlamaTts(dir) } });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    await hub?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('zest pull brings the backbone and its codec; the model is tts and speaks', async () => {
    const pulled = await zest.json('/api/v1/pull', { model: REPO, stream: false });
    assert.equal(pulled.status, 200, JSON.stringify(pulled.data));
    const name = `${REPO}:Q8_0`;
    const { data } = (await zest.json('/v1/models')).data;
    const talker = data.find((m) => m.id === name);
    assert.equal(talker?.type, 'tts', JSON.stringify(data));
    assert.match(talker.vocoder, /mmproj-Talker-f16\.gguf$/);
    assert.equal(talker.mmproj, undefined, 'the codec is its vocoder, not a projector');
    assert.ok(!(talker.capabilities ?? []).includes('vision'));
    const client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
    const res = await client.audio.speech.create({ model: name, voice: 'alloy', input: SHORT, response_format: 'wav' });
    const audio = probe(Buffer.from(await res.arrayBuffer()));
    assert.equal(audio.rate, 24000);
    assert.ok(audio.seconds > 0.5, `${audio.seconds} s`);
    const argv = descendants(zest.pid).map((p) => engineArgv(p.pid)).find((a) => a.includes('tts-engine')) ?? [];
    assert.ok(argv.some((a) => /mmproj-Talker-f16\.gguf$/.test(a)), argv.join(' '));
  });
});

describe('speech out with the engine rootfs\'s real llama-tts', () => {
  // Resolved as zest resolves it (as root the system cache, else the
  // user's); `make test` provisions it, so there a missing one fails.
  const skip = needsEngineBinary('usr/bin/llama-tts');
  test('it refuses the OuteTTS pair (its vocoder is no projector): a clean 5xx, its words in zest\'s log, nothing left', {
    skip,
  }, async () => {
    const zest = await startZest({ home: makeHome({ voice: 'tts' }) });
    try {
      const client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
      const e = await client.audio.speech.create({ model: 'voice', voice: 'alloy', input: SHORT, response_format: 'wav' })
        .then(() => null, (err) => err);
      assert.ok(e, 'refused');
      assert.ok(e.status >= 500 && e.status < 600, e.message);
      assert.match(e.error.message, /speech engine failed: llama-tts exited with code 1 \(zest's log has the engine's output\)$/);
      // llama-tts's own words go to zest's log, never to the client.
      assert.doesNotMatch(e.error.message, /mmproj|CLIP/);
      assert.match(zest.logs(), /speech engine: llama-tts exited with code 1: .*(mmproj|CLIP)/s);
      await waitFor(() => !descendants(zest.pid).some((p) => p.comm === 'llama-tts'), { what: 'no llama-tts left' });
    } finally {
      await zest.stop();
      zest.cleanup();
    }
  });
});
