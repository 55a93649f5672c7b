// Speech to text through zest with the official `openai` SDK: a synthetic
// whisper.cpp model (random encoder; its decoder says a fixed script for
// every 30 s window) served by the real whisper-server that `make engines`
// provisions, on the real sample WAV Debian's whisper.cpp-tools ships.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { chatBody, descendants, makeHome, sampleSpeech, startZest, syntheticWhisper, waitFor } from '../lib/zest.mjs';
import { startFakeHub } from '../lib/fake_hub.mjs';

const SAMPLE_SECONDS = 53.37;  // 853,937 samples at 16 kHz

describe('speech to text (whisper-server, synthetic model)', () => {
  let zest;
  let client;
  let wav;
  let words;
  before(async () => {
    zest = await startZest({ home: makeHome({ ears: 'whisper', tiny: 'tiny' }) });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
    wav = fs.readFileSync(sampleSpeech());
    words = syntheticWhisper().words;
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  const file = () => toFile(wav, 'speech.wav', { type: 'audio/wav' });

  test('/v1/models says which models are speech models', async () => {
    const list = await client.models.list();
    const ears = list.data.find((m) => m.id === 'ears');
    assert.equal(ears.type, 'speech');
    assert.equal(ears.architecture, 'whisper');
    assert.equal(list.data.find((m) => m.id === 'tiny').type, 'llm');
    const show = (await zest.json('/api/v1/show', { model: 'ears' })).data;
    assert.equal(show.format, 'ggml');
    assert.equal(show.details.type, 'speech');
    assert.ok(show.tensor_count > 0 && show.metadata.n_mels === 80, JSON.stringify(show.metadata));
  });

  test('zest system says which engine transcribes, and which audio it reads', async () => {
    const info = await zest.json('/api/v1/system-info');
    const whisper = info.data.engines.find((e) => e.name === 'whisper-server');
    assert.ok(whisper?.found, JSON.stringify(info.data.engines));
    assert.deepEqual(whisper.serves, ['transcription']);
    assert.match(whisper.notes.join(' '), /WAV, MP3, FLAC, Ogg Vorbis; zest converts other formats \(WebM, Opus, M4A...\) with ffmpeg/);
    assert.match(whisper.sandbox, /behind zest's engine bridge/);
  });

  test('json: the text of both 30 s windows', async () => {
    const r = await client.audio.transcriptions.create({ file: await file(), model: 'ears' });
    assert.equal(r.text, `${words} ${words}`);
  });

  test('text, srt and vtt', async () => {
    const text = await client.audio.transcriptions.create({ file: await file(), model: 'ears', response_format: 'text' });
    assert.equal(text.trim(), `${words} ${words}`);
    const srt = await client.audio.transcriptions.create({ file: await file(), model: 'ears', response_format: 'srt' });
    assert.equal(srt, `1\n00:00:00,000 --> 00:00:02,000\n${words}\n\n2\n00:00:30,000 --> 00:00:32,000\n${words}\n\n`);
    const vtt = await client.audio.transcriptions.create({ file: await file(), model: 'ears', response_format: 'vtt' });
    assert.equal(vtt, `WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n${words}\n\n00:00:30.000 --> 00:00:32.000\n${words}\n\n`);
  });

  test('verbose_json: duration is the audio\'s length, with segments and words', async () => {
    const r = await client.audio.transcriptions.create({
      file: await file(), model: 'ears', response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'],
    });
    assert.equal(r.task, 'transcribe');
    assert.ok(Math.abs(r.duration - SAMPLE_SECONDS) < 0.01, `duration ${r.duration}`);
    assert.equal(r.text, `${words} ${words}`);
    assert.deepEqual(r.segments.map((s) => [s.id, s.start, s.end, s.text.trim()]), [[0, 0, 2, words], [1, 30, 32, words]]);
    assert.ok(r.segments.every((s) => s.tokens.length > 0));
    assert.deepEqual(r.words.map((w) => w.word), [...words.split(' '), ...words.split(' ')]);
    assert.ok(r.words.every((w) => w.start <= w.end));
  });

  test('WebM/Opus and M4A are converted with ffmpeg, in its sandbox, leaving nothing behind', async () => {
    // Encoded here from the sample WAV by the same ffmpeg (`make test` installs it).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-audio-test-'));
    const leftovers = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('zest-audio-') && !n.startsWith('zest-audio-test-'));
    const before = leftovers();
    try {
      for (const [name, codec] of [['speech.webm', 'libopus'], ['speech.m4a', 'aac']]) {
        const out = path.join(dir, name);
        execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', sampleSpeech(), '-c:a', codec, out]);
        const r = await client.audio.transcriptions.create({
          file: await toFile(fs.readFileSync(out), name), model: 'ears', response_format: 'verbose_json',
        });
        assert.equal(r.text, `${words} ${words}`, name);
        assert.ok(Math.abs(r.duration - SAMPLE_SECONDS) < 0.2, `${name}: duration ${r.duration}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(leftovers(), before, 'no conversion directory is left');
    // What ffmpeg cannot read either is a 400 in OpenAI's shape.
    const garbage = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(2000, 9)]);
    await assert.rejects(
      client.audio.transcriptions.create({ file: await toFile(garbage, 'x.webm'), model: 'ears' }),
      (e) => e.status === 400 && /ffmpeg could not decode it/.test(e.error.message) && e.error.param === 'file');
  });

  // A small upload of long silence used to expand to its whole length as
  // WAV in zest's memory (1 MB of Opus is 60 MB decoded). Now its header's
  // length is checked before it is decoded (limits.max_audio_s, default 30
  // min): three at once are refused, and zest's peak memory barely moves.
  test('compressed audio longer than limits.max_audio_s is refused before it is decoded', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-audio-test-'));
    try {
      const out = path.join(dir, 'silence.webm');
      execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono',
        '-t', '1860', '-c:a', 'libopus', '-b:a', '6k', '-compression_level', '0', '-frame_duration', '60', out]);
      const silence = fs.readFileSync(out);
      assert.ok(silence.length < 1.5e6, `${silence.length} bytes`);
      const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${zest.pid}/status`, 'utf8'))[1]) * 1024;
      const before = peak();
      const answers = await Promise.all([1, 2, 3].map(async () =>
        client.audio.transcriptions.create({ file: await toFile(silence, 'silence.webm'), model: 'ears' }).then(() => null, (e) => e)));
      for (const e of answers) {
        assert.ok(e, 'refused');
        assert.equal(e.status, 413, e.message);
        assert.match(e.error.message, /the audio is too long: at most 1800 s \(limits\.max_audio_s\)/);
        assert.equal(e.error.param, 'file');
      }
      const grew = peak() - before;
      // Decoded, the three would be 3 × 59.5 MB.
      assert.ok(grew < 32 * 1024 * 1024, `zest's peak memory grew by ${(grew / 1048576).toFixed(1)} MB`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('translations answer in the same shapes, as a translation', async () => {
    const r = await client.audio.translations.create({ file: await file(), model: 'ears', response_format: 'verbose_json' });
    assert.equal(r.task, 'translate');
    assert.equal(r.text, `${words} ${words}`);
  });

  test('bad input: OpenAI errors, 400 or 413, naming the field', async () => {
    const bad = async (params, status, pattern) => {
      const err = await client.audio.transcriptions.create(params).then(() => null, (e) => e);
      assert.ok(err, 'refused');
      assert.equal(err.status, status, err.message);
      assert.match(err.error?.message ?? '', pattern);
    };
    await bad({ file: await toFile(Buffer.from('not audio at all'), 'a.wav'), model: 'ears' }, 400, /not audio zest can read/);
    // A WAV header over garbage: not a plain WAV, so ffmpeg measures it, and finds no audio.
    const broken = Buffer.concat([wav.subarray(0, 12), Buffer.alloc(4000, 7)]);
    await bad({ file: await toFile(broken, 'b.wav'), model: 'ears' }, 400, /not audio zest can read/);
    await bad({ file: await file(), model: 'tiny' }, 400, /not a speech-to-text model/);
    await bad({ file: await file(), model: 'ears', response_format: 'xml' }, 400, /response_format/);
    await bad({ file: await file(), model: 'ears', language: 'xx' }, 400, /unknown language 'xx'/);
    await bad({ file: await file(), model: 'nope' }, 404, /nope/);
    await bad({ file: await toFile(Buffer.concat([wav, Buffer.alloc(26 * 1024 * 1024)]), 'big.wav'), model: 'ears' }, 413, /25 MB/);
    const chat = await zest.json('/v1/chat/completions', chatBody('ears'));
    assert.equal(chat.status, 400);
    assert.match(chat.data.error.message, /speech-to-text model; use \/v1\/audio\/transcriptions/);
  });

  test('chat and transcription run side by side', async () => {
    const [speech, chat] = await Promise.all([
      client.audio.transcriptions.create({ file: await file(), model: 'ears' }),
      zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 32 })),
    ]);
    assert.equal(speech.text, `${words} ${words}`);
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    const instances = await zest.instances();
    assert.deepEqual(instances.map((i) => i.model).sort(), ['ears', 'tiny']);
  });

  test('metrics count the audio and its real-time factor', async () => {
    const text = await (await zest.fetch('/metrics')).text();
    const seconds = Number(/^zest_audio_seconds_total\{model="ears"\} (\S+)$/m.exec(text)?.[1]);
    assert.ok(seconds >= 5 * SAMPLE_SECONDS, `audio seconds ${seconds}`);
    assert.match(text, /^zest_audio_realtime_factor_count\{model="ears"\} [1-9]\d*$/m);
    assert.match(text, /^zest_requests_total\{api="openai",endpoint="transcriptions",model="ears",status="200"\} [1-9]/m);
  });

  test('whisper-server runs sandboxed, behind the bridge: its port is in its own network namespace', async () => {
    const instance = (await zest.instances()).find((i) => i.model === 'ears');
    const tree = descendants(instance.pid);
    const server = tree.find((p) => p.comm === 'whisper-server');
    assert.ok(server, JSON.stringify(tree));
    assert.notEqual(fs.readlinkSync(`/proc/${server.pid}/ns/net`), fs.readlinkSync('/proc/self/ns/net'));
    const environ = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8');
    assert.doesNotMatch(environ, /ZEST_|HF_/);
  });

  test('a whisper-server killed mid-request: the request is retried on a fresh engine', async () => {
    // Five minutes of speech: the engine is busy long enough to be killed.
    const data = wav.indexOf('data', 12) + 8;  // the samples follow the "data" chunk's header
    const long = Buffer.concat([wav.subarray(0, data), ...Array(6).fill(wav.subarray(data))]);
    long.writeUInt32LE(long.length - 8, 4);
    long.writeUInt32LE(long.length - data, data - 4);
    await client.audio.transcriptions.create({ file: await file(), model: 'ears' });  // loaded
    const before = (await zest.instances()).find((i) => i.model === 'ears');
    const server = descendants(before.pid).find((p) => p.comm === 'whisper-server');
    const pending = client.audio.transcriptions.create({ file: await toFile(long, 'long.wav'), model: 'ears' });
    await waitFor(async () => (await zest.instances()).some((i) => i.model === 'ears' && i.in_flight > 0),
      { timeout: 10000, interval: 20, what: 'the request to reach the engine' });
    process.kill(server.pid, 'SIGKILL');
    const r = await pending;
    assert.equal(r.text.split(words).length - 1, 11, r.text);  // 11 windows of 30 s
    const after = (await zest.instances()).find((i) => i.model === 'ears');
    assert.notEqual(after.pid, before.pid, 'a fresh engine answered');
    assert.match(zest.logs(), /engine for 'ears' broke off before answering, trying a fresh one/);
  });
});

// A fresh home with no models: speech models come from the (stand-in)
// Hugging Face hub by their whisper.cpp names, and from the catalog.
describe('the audio requests hold at once has a ceiling (limits.max_audio_memory_mb)', () => {
  test('one over the ceiling is 429 with Retry-After; a request under it gives its share back when answered', async () => {
    const zest = await startZest({ home: makeHome({ ears: 'whisper' }), env: { ZEST_MAX_AUDIO_MEMORY_MB: '3' } });
    try {
      const client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
      const wav = fs.readFileSync(sampleSpeech());
      assert.ok(wav.length > 1.5 * 2 ** 20 && wav.length < 2 * 2 ** 20, `${wav.length} bytes`);
      // Two in a row: the second fits only if the first gave its 1.8 MiB back.
      for (let i = 0; i < 2; i++) {
        const r = await client.audio.transcriptions.create({ file: await toFile(wav, 'speech.wav'), model: 'ears' });
        assert.equal(r.text, `${syntheticWhisper().words} ${syntheticWhisper().words}`);
      }
      const big = Buffer.concat([wav, Buffer.alloc(1.5 * 2 ** 20)]);
      const err = await client.audio.transcriptions.create({ file: await toFile(big, 'big.wav'), model: 'ears' })
        .then(() => null, (e) => e);
      assert.ok(err, 'refused');
      assert.equal(err.status, 429, err.message);
      assert.equal(err.headers.get('retry-after'), '1');
      assert.match(err.error.message, /this one's 4 MiB would pass the 3 MiB they may hold at once \(limits\.max_audio_memory_mb\)/);
      assert.equal(err.error.param, 'file');
      const metrics = await (await zest.fetch('/metrics')).text();
      assert.match(metrics, /^zest_rejections_total\{model="ears",reason="audio_memory"\} 1$/m);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('speech models pulled from the hub', () => {
  const REPO = 'ggerganov/whisper.cpp';
  let hub;
  let zest;
  before(async () => {
    const model = fs.readFileSync(syntheticWhisper().file);
    hub = await startFakeHub({
      repos: {
        [REPO]: {
          files: {
            'ggml-base.en.bin': model,
            // The catalog's whisper-tiny: the same weights under another name.
            'ggml-tiny.bin': model,
            'ggml-large-v3.bin': Buffer.concat([model, Buffer.alloc(1 << 20)]),
            'README.md': Buffer.from('whisper.cpp models'),
          },
        },
      },
    });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-hf-cache-'));
    zest = await startZest({ home: makeHome({}), env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache } });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    await hub?.close();
  });

  test('zest pull ggerganov/whisper.cpp:base.en, then transcribe with it', async () => {
    const { status, events } = await zest.stream('/api/v1/pull', { model: `${REPO}:base.en` });
    assert.equal(status, 200);
    const last = JSON.parse(events.at(-1));
    assert.equal(last.status, 'success', JSON.stringify(last));
    assert.equal(last.model, `${REPO}:base.en`);
    const models = (await zest.json('/v1/models')).data.data;
    const pulled = models.find((m) => m.id === `${REPO}:base.en`);
    assert.equal(pulled?.type, 'speech', JSON.stringify(models));
    assert.ok(!models.some((m) => m.id.includes('large')), 'only what was asked is downloaded');
    const client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
    const wav = fs.readFileSync(sampleSpeech());
    const r = await client.audio.transcriptions.create({
      file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }), model: `${REPO}:base.en`,
    });
    const words = syntheticWhisper().words;
    assert.equal(r.text, `${words} ${words}`);
  });

  test('the catalog\'s Whisper entries pull and list as speech models', async () => {
    const { status, events } = await zest.stream('/api/v1/pull', { model: 'whisper-tiny' });
    assert.equal(status, 200);
    assert.equal(JSON.parse(events.at(-1)).status, 'success', events.at(-1));
    const tiny = (await zest.json('/v1/models')).data.data.find((m) => m.id === 'whisper-tiny');
    assert.equal(tiny?.type, 'speech');
  });
});

// Speech and chat share the memory ledger: under a limit that holds either
// model but not both, each evicts the other in turn.
describe('a speech model and a chat model that do not fit together', () => {
  test('transcribe, chat, transcribe: each evicts the other, and both answer', async () => {
    // Their sizes as placement predicts them, from a server without a limit.
    const sizes = {};
    const probe = await startZest({ home: makeHome({ ears: 'whisper', tiny: 'tiny' }) });
    try {
      for (const model of ['ears', 'tiny']) {
        const r = await probe.json('/api/v1/load', { model });
        assert.equal(r.status, 200, JSON.stringify(r.data));
      }
      for (const i of await probe.instances()) sizes[i.model] = i.placement.predicted_total_bytes;
    } finally {
      await probe.stop();
      probe.cleanup();
    }
    const MiB = 2 ** 20;
    const limit = Math.ceil((Math.max(sizes.ears, sizes.tiny) + Math.min(sizes.ears, sizes.tiny) / 2) / MiB);
    assert.ok(limit * MiB < sizes.ears + sizes.tiny, JSON.stringify({ sizes, limit }));

    const home = makeHome({ ears: 'whisper', tiny: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'), `[placement]\nmemory_limit = "${limit}M"\n`);
    const zest = await startZest({ home });
    try {
      const client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
      const wav = fs.readFileSync(sampleSpeech());
      const words = syntheticWhisper().words;
      const transcribe = async () => {
        const r = await client.audio.transcriptions.create({
          file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }), model: 'ears',
        });
        assert.equal(r.text, `${words} ${words}`);
      };
      const loaded = async () => (await zest.instances()).map((i) => i.model);
      await transcribe();
      assert.deepEqual(await loaded(), ['ears']);
      const chat = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(chat.status, 200, JSON.stringify(chat.data));
      assert.deepEqual(await loaded(), ['tiny']);
      await transcribe();
      assert.deepEqual(await loaded(), ['ears']);
    } finally {
      await zest.stop();
      zest.cleanup();
    }
  });
});
