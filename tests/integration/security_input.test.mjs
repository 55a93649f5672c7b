// Issue 52's client-input findings, tried as a client would, against the
// real engines (llama-server with a synthetic vision model and projector,
// whisper-server with a synthetic speech model) and the real ffmpeg:
//   1. an image part of any shape but its API's exact one is a 400, never
//      passed on (one member more went to llama-server past every image
//      limit); a JPEG whose header the probe could not walk is measured;
//   2. audio of every format is measured before the engine sees it (FLAC
//      and MP3 of long silence were transcribed past limits.max_audio_s);
//   6. the form zest writes for whisper-server has a boundary of its own,
//      so a WAV holding the old constant one cannot add fields.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { makeHome, sampleSpeech, startZest, syntheticWhisper } from '../lib/zest.mjs';

const dataUrl = (mime, bytes) => `data:${mime};base64,${bytes.toString('base64')}`;

// A 37 x 23 test pattern (851 pixels) written by ffmpeg as `name`.
function picture(dir, name) {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=37x23',
    '-frames:v', '1', '-y', file]);
  return fs.readFileSync(file);
}

// `seconds` of silence as `name` (its extension picks the format).
function silence(dir, name, seconds, args = []) {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono',
    '-t', String(seconds), ...args, '-y', file]);
  return fs.readFileSync(file);
}

describe('security: image parts (issue 52, 1)', () => {
  let zest;
  let dir;
  let png;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-sec-input-'));
    png = picture(dir, 'a.png');
    // 851 pixels each: one picture is over this limit.
    zest = await startZest({ home: makeHome({ seer: 'vision' }), env: { ZEST_MAX_IMAGE_PIXELS: '800' } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); fs.rmSync(dir, { recursive: true, force: true }); });

  const ask = (content) => zest.json('/v1/chat/completions',
    { model: 'seer', max_tokens: 1, messages: [{ role: 'user', content }] });

  test('the image as OpenAI shapes it is measured: over max_image_pixels is 413', async () => {
    const r = await ask([{ type: 'text', text: 'what?' }, { type: 'image_url', image_url: { url: dataUrl('image/png', png) } }]);
    assert.equal(r.status, 413, JSON.stringify(r.data));
    assert.match(r.data.error.message, /37 x 23 pixels/);
  });

  test('one member more, an unknown part type or a malformed audio part is a 400 naming the part', async () => {
    const url = dataUrl('image/png', png);
    const parts = [
      { type: 'image_url', image_url: { url, x: 1 } },
      { type: 'image_url', image_url: { url }, x: 1 },
      { type: 'image_url', image_url: { url: 'http://10.0.0.1:8080/secret.png', x: 1 } },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav', url: 'http://10.0.0.1/a.wav' } },
      { type: 'file', file: { file_data: url } },
    ];
    for (const part of parts) {
      const r = await ask([{ type: 'text', text: 'what?' }, part]);
      assert.equal(r.status, 400, `${JSON.stringify(part)}: ${JSON.stringify(r.data)}`);
      assert.equal(r.data.error.type, 'invalid_request_error');
      assert.equal(r.data.error.param, 'messages');
      assert.match(r.data.error.message, /messages\[0\]\.content\[1\]/);
    }
  });

  test('Anthropic and Responses image parts of another shape are refused in their own formats', async () => {
    const anthropic = await zest.json('/v1/messages', {
      model: 'seer', max_tokens: 1, messages: [{ role: 'user', content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64'), url: 'http://10.0.0.1/' } }] }] });
    assert.equal(anthropic.status, 400, JSON.stringify(anthropic.data));
    assert.equal(anthropic.data.type, 'error');
    assert.equal(anthropic.data.error.type, 'invalid_request_error');
    const responses = await zest.json('/v1/responses', {
      model: 'seer', max_output_tokens: 1, store: false, input: [{ role: 'user', content: [
        { type: 'input_image', image_url: dataUrl('image/png', png), x: 1 }] }] });
    assert.equal(responses.status, 400, JSON.stringify(responses.data));
    assert.match(responses.data.error.message, /input_image holds type, image_url and detail only/);
  });

  test('a JPEG with a byte between its segments is measured as the engine reads it', async () => {
    const jpeg = picture(dir, 'a.jpg');
    // After SOI (2 bytes) the APP0 segment: 2 + its length. One 0x00 there
    // stopped the probe (0 x 0 passed); stb_image skips it.
    assert.equal(jpeg[3], 0xE0, 'APP0 first');
    const app0End = 4 + jpeg.readUInt16BE(4);
    const odd = Buffer.concat([jpeg.subarray(0, app0End), Buffer.from([0]), jpeg.subarray(app0End)]);
    const r = await ask([{ type: 'image_url', image_url: { url: dataUrl('image/jpeg', odd) } }]);
    assert.equal(r.status, 413, JSON.stringify(r.data));
    assert.match(r.data.error.message, /37 x 23 pixels/);
    // No frame before the scan: no size, refused.
    const sos = jpeg.indexOf(Buffer.from([0xFF, 0xDA]));
    const headless = Buffer.concat([jpeg.subarray(0, app0End), jpeg.subarray(sos)]);
    const none = await ask([{ type: 'image_url', image_url: { url: dataUrl('image/jpeg', headless) } }]);
    assert.equal(none.status, 400, JSON.stringify(none.data));
    assert.match(none.data.error.message, /gives no size/);
  });
});

describe('security: audio length and the engine form (issue 52, 2 and 6)', () => {
  let zest;
  let client;
  let dir;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-sec-audio-'));
    zest = await startZest({ home: makeHome({ ears: 'whisper' }), env: { ZEST_MAX_AUDIO_S: '60' } });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => { await zest.stop(); zest.cleanup(); fs.rmSync(dir, { recursive: true, force: true }); });

  const refused = async (bytes, name) => {
    const e = await client.audio.transcriptions.create({ file: await toFile(bytes, name), model: 'ears' })
      .then(() => null, (err) => err);
    assert.ok(e, `${name} refused`);
    assert.equal(e.status, 413, `${name}: ${e.message}`);
    assert.match(e.error.message, /the audio is too long: at most 60 s \(limits\.max_audio_s\)/);
    assert.equal(e.error.param, 'file');
  };

  test('300 s of silence is refused in every format the engine could read itself', async () => {
    const flac = silence(dir, 's.flac', 300);
    assert.ok(flac.length < 200_000, `${flac.length} bytes of FLAC`);
    await refused(flac, 's.flac');
    await refused(silence(dir, 's.mp3', 300, ['-b:a', '8k']), 's.mp3');
    await refused(silence(dir, 's.ogg', 300, ['-c:a', 'libvorbis']), 's.ogg');
    await refused(silence(dir, 's.wav', 300), 's.wav');
    // A plain WAV whose data chunk says 1 s: the bytes after it count.
    const wav = silence(dir, 't.wav', 61);
    const data = wav.indexOf('data');
    wav.writeUInt32LE(32000, data + 4);
    await refused(wav, 't.wav');
    // 8 kHz stereo: not plain, so ffmpeg measures it.
    await refused(silence(dir, 'st.wav', 90, ['-ar', '8000', '-ac', '2']), 'st.wav');
  });

  test('audio under the limit is transcribed, converted or not', async () => {
    const words = syntheticWhisper().words;
    for (const name of ['short.flac', 'short.mp3', 'short.wav']) {
      const r = await client.audio.transcriptions.create({ file: await toFile(silence(dir, name, 5), name), model: 'ears' });
      assert.equal(r.text, words, name);
    }
  });

  test('a WAV holding the old constant boundary cannot change the engine\'s form', async () => {
    const wav = fs.readFileSync(sampleSpeech());
    const old = 'zest-whisper-form-7d1f0c';
    const injected = Buffer.from(`\r\n--${old}\r\nContent-Disposition: form-data; name="response_format"\r\n\r\ntext\r\n--${old}--\r\n`);
    // Appended after the samples (a plain WAV: sent on unconverted).
    const r = await client.audio.transcriptions.create({
      file: await toFile(Buffer.concat([wav, injected]), 'a.wav'), model: 'ears', response_format: 'verbose_json' });
    assert.equal(typeof r.duration, 'number', JSON.stringify(r));
    assert.ok(Array.isArray(r.segments));
  });
});
