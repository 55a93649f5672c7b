// Image generation through zest with the official `openai` SDK, served by a
// STAND-IN sd-server (tests/lib/fake_sd_server.mjs: no package ships
// stable-diffusion.cpp's server, and a real diffusion model is gigabytes).
// What is real: zest's image model detection (a safetensors file with a
// diffusion model's tensors), its placement, sd-server's command line, its
// own network namespace behind the engine bridge, admission, the relay,
// supervision, metrics and errors in OpenAI's shape.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { chatBody, descendants, makeHome, startZest, waitFor } from '../lib/zest.mjs';
import { writeFakeSdServer, writeSafetensors } from '../lib/fake_sd_server.mjs';

// The stand-in's process among zest's descendants, by its command line.
function sdServer(zestPid) {
  return descendants(zestPid).find((p) => {
    try {
      return fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0')[1]?.endsWith('/sd-server');
    } catch { return false; }
  });
}

const jpegMagic = (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
const webpMagic = (b) => b.subarray(0, 4).toString() === 'RIFF' && b.subarray(8, 12).toString() === 'WEBP';

// An image decoded by ffmpeg (every frame, to the end: it must be whole),
// and its codec and size as ffprobe reads them.
function decode(bytes) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zest-decode-')), 'image');
  try {
    fs.writeFileSync(file, bytes);
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-xerror', '-i', file, '-f', 'null', '-']);
    const [codec, width, height] = execFileSync('ffprobe',
      ['-v', 'error', '-show_entries', 'stream=codec_name,width,height', '-of', 'csv=p=0', file]).toString().trim().split(',');
    return { codec, width: Number(width), height: Number(height) };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

// The sum of a JPEG's first quantization table (its first DQT segment:
// FF DB, a 2-byte length, the table's precision/id byte, 64 8-bit values):
// the larger, the coarser the quality.
function jpegQuantSum(bytes) {
  const at = bytes.indexOf(Buffer.from([0xff, 0xdb]));
  assert.ok(at > 0 && bytes[at + 4] >> 4 === 0, 'an 8-bit DQT segment');
  return [...bytes.subarray(at + 5, at + 69)].reduce((a, b) => a + b, 0);
}

// Width and height from a PNG's IHDR chunk.
function pngSize(b64) {
  const png = Buffer.from(b64, 'base64');
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('image generation (STAND-IN sd-server)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-fake-sd-'));
  // zest's own $TMPDIR, where ffmpeg's private directories go.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-tmp-'));
  let zest;
  let client;

  before(async () => {
    const script = writeFakeSdServer(dir);
    const home = makeHome({ tiny: 'tiny' });
    // An SD 1.x checkpoint in miniature, and a language model's safetensors.
    writeSafetensors(path.join(home, 'models', 'pics.safetensors'), {
      'model.diffusion_model.input_blocks.0.0.weight': { dtype: 'F16', shape: [320, 4, 3, 3] },
      'first_stage_model.decoder.conv_in.weight': { dtype: 'F32', shape: [512, 4, 3, 3] },
    });
    writeSafetensors(path.join(home, 'models', 'llm.safetensors'), {
      'model.embed_tokens.weight': { dtype: 'BF16', shape: [64, 8] },
    });
    zest = await startZest({ home, env: { ZEST_SD_SERVER: script, TMPDIR: tmp } });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('/v1/models lists the diffusion model as an image model, and says why another safetensors file is not one', async () => {
    const models = (await zest.json('/v1/models')).data.data;
    const pics = models.find((m) => m.id === 'pics');
    assert.equal(pics.type, 'image');
    assert.equal(pics.architecture, 'stable-diffusion');
    assert.equal(pics.quantization, 'F32');  // most of its bytes
    assert.match(models.find((m) => m.id === 'llm').error, /not an image generation model/);
    const show = (await zest.json('/api/v1/show', { model: 'pics' })).data;
    assert.equal(show.format, 'safetensors');
    assert.equal(show.tensor_count, 2);
    assert.equal(show.details.type, 'image');
  });

  test('the SDK generates images: real PNGs of the asked size, as b64_json', async () => {
    const r = await client.images.generate({
      model: 'pics', prompt: 'a lighthouse at dusk', n: 2, size: '64x96', response_format: 'b64_json',
    });
    assert.equal(r.data.length, 2);
    for (const image of r.data) assert.deepEqual(pngSize(image.b64_json), [64, 96]);
    assert.equal(r.output_format, 'png');
    assert.ok(Math.abs(r.created - Date.now() / 1000) < 60);
  });

  test('sd-server runs sandboxed behind the bridge, with the model and its own network', async () => {
    const server = sdServer(zest.pid);
    assert.ok(server, 'sd-server is running');
    const argv = fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0');
    assert.equal(argv[argv.indexOf('-m') + 1], path.join(zest.home, 'models', 'pics.safetensors'));
    assert.equal(argv[argv.indexOf('--listen-ip') + 1], '127.0.0.1');
    assert.notEqual(fs.readlinkSync(`/proc/${server.pid}/ns/net`), fs.readlinkSync('/proc/self/ns/net'));
    const environ = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8');
    assert.doesNotMatch(environ, /ZEST_|HF_/);
    const instance = (await zest.instances()).find((i) => i.model === 'pics');
    assert.equal(instance.engine, 'sd-server');
  });

  test('bad requests get OpenAI-shaped 400s naming the field', async () => {
    const cases = [
      [{ model: 'pics', prompt: 'x', size: '100x100' }, 'size'],
      [{ model: 'pics', prompt: 'x', response_format: 'url' }, 'response_format'],
      [{ model: 'pics', prompt: 'x', n: 11 }, 'n'],
      [{ model: 'pics' }, 'prompt'],
      [{ model: 'tiny', prompt: 'x' }, 'model'],  // a language model
    ];
    for (const [body, param] of cases) {
      const r = await zest.json('/v1/images/generations', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.data.error.type, 'invalid_request_error');
      assert.equal(r.data.error.param, param, r.data.error.message);
    }
    const chat = await zest.json('/v1/chat/completions', chatBody('pics'));
    assert.equal(chat.status, 400);
    assert.match(chat.data.error.message, /image generation model; use \/v1\/images\/generations/);
    // What the engine itself refuses comes back as a 400 too.
    const engine = await zest.json('/v1/images/generations', { model: 'pics', prompt: 'STAND-IN: refuse' });
    assert.equal(engine.status, 400);
    assert.match(engine.data.error.message, /sd-server refused the request: the STAND-IN refuses this prompt/);
  });

  // The stand-in encodes PNG only and refuses jpeg and webp: these images
  // were made by zest, from its PNGs, with the real ffmpeg.
  test('jpeg and webp: made by zest from the engine\'s PNG, real images of the asked size', async () => {
    for (const [format, magic] of [['jpeg', jpegMagic], ['webp', webpMagic]]) {
      const r = await client.images.generate({
        model: 'pics', prompt: `a ${format} lighthouse`, n: 2, size: '64x96', output_format: format, output_compression: 60,
      });
      assert.equal(r.output_format, format);
      assert.equal(r.size, '64x96');
      assert.equal(r.data.length, 2);
      for (const image of r.data) {
        const bytes = Buffer.from(image.b64_json, 'base64');
        assert.ok(magic(bytes), `${format} magic bytes: ${bytes.subarray(0, 12).toString('hex')}`);
        assert.deepEqual(decode(bytes), { codec: format === 'jpeg' ? 'mjpeg' : 'webp', width: 64, height: 96 });
      }
    }
    // output_compression reaches the encoder: the default (100) is the
    // finest JPEG quantization, 0 the coarsest.
    const quant = async (extra) => jpegQuantSum(Buffer.from((await client.images.generate({
      model: 'pics', prompt: 'quality', size: '64x64', output_format: 'jpeg', ...extra })).data[0].b64_json, 'base64'));
    const [best, worst] = [await quant({}), await quant({ output_compression: 0 })];
    assert.ok(best * 4 < worst, `quantization ${best} at the default, ${worst} at 0`);
    // Nothing of the conversions is left in zest's temporary directory.
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  test('an image job and a chat run side by side', async () => {
    const [image, chat] = await Promise.all([
      client.images.generate({ model: 'pics', prompt: 'side by side', size: '256x256' }),
      zest.json('/v1/chat/completions', chatBody('tiny')),
    ]);
    assert.deepEqual(pngSize(image.data[0].b64_json), [256, 256]);
    assert.equal(chat.status, 200);
  });

  test('an sd-server killed mid-job: the job is retried on a fresh engine', async () => {
    const before = sdServer(zest.pid);
    // 1,024 x 1,024 keeps the stand-in busy about a second.
    const pending = client.images.generate({ model: 'pics', prompt: 'big', size: '1024x1024' });
    await waitFor(async () => (await zest.instances()).some((i) => i.model === 'pics' && i.in_flight > 0),
      { timeout: 10000, interval: 20, what: 'the job to reach the engine' });
    process.kill(before.pid, 'SIGKILL');
    const r = await pending;
    assert.deepEqual(pngSize(r.data[0].b64_json), [1024, 1024]);
    assert.notEqual(sdServer(zest.pid)?.pid, before.pid, 'a fresh engine answered');
    assert.match(zest.logs(), /engine for 'pics' broke off before answering, trying a fresh one/);
  });

  test('metrics count the images and their time', async () => {
    const text = await (await zest.fetch('/metrics')).text();
    const images = Number(/^zest_images_generated_total\{model="pics"\} (\S+)$/m.exec(text)?.[1]);
    assert.ok(images >= 4, `images ${images}`);
    assert.match(text, /^zest_image_seconds_count\{model="pics"\} [1-9]\d*$/m);
    assert.match(text, /^zest_requests_total\{api="openai",endpoint="images",model="pics",status="200"\} [1-9]/m);
  });

  test('zest system says sd-server is installed and the sdcpp recipe usable', async () => {
    const info = (await zest.json('/api/v1/system-info')).data;
    const engine = info.engines.find((e) => e.name === 'sd-server');
    assert.equal(engine.found, true, JSON.stringify(engine));
    assert.equal(engine.source, 'configured');
    assert.match(engine.notes.join(' '), /makes PNG; zest converts to jpeg and webp with ffmpeg/);
    assert.equal(info.recipes.find((r) => r.recipe === 'sdcpp').verdict, 'usable');
  });
});

// Without ffmpeg (none on its PATH, none in the engine rootfs), zest makes
// no jpeg or webp: a 400 naming output_format before anything is queued;
// png is as ever.
describe('image generation without ffmpeg (STAND-IN sd-server)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-fake-sd-'));
  const emptyPath = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-no-ffmpeg-'));
  let zest;

  before(async () => {
    const script = writeFakeSdServer(dir);
    const home = makeHome({});
    writeSafetensors(path.join(home, 'models', 'pics.safetensors'), {
      'model.diffusion_model.input_blocks.0.0.weight': { dtype: 'F16', shape: [320, 4, 3, 3] },
    });
    zest = await startZest({ home, env: { ZEST_SD_SERVER: script, PATH: emptyPath } });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(emptyPath, { recursive: true, force: true });
  });

  test('jpeg and webp are 400s naming output_format and ffmpeg; png works', async () => {
    assert.match(zest.logs(), /audio and image conversion: ffmpeg is not installed/);
    for (const format of ['jpeg', 'webp']) {
      const r = await zest.json('/v1/images/generations', { model: 'pics', prompt: 'x', output_format: format });
      assert.equal(r.status, 400);
      assert.equal(r.data.error.type, 'invalid_request_error');
      assert.equal(r.data.error.param, 'output_format');
      assert.match(r.data.error.message, new RegExp(`output_format ${format} is not available here: ffmpeg is not installed \\(apt install ffmpeg\\)`));
    }
    assert.deepEqual(await zest.instances(), [], 'refused before an engine was started');
    const png = await zest.json('/v1/images/generations', { model: 'pics', prompt: 'x', size: '64x64' });
    assert.equal(png.status, 200);
    assert.deepEqual(pngSize(png.data.data[0].b64_json), [64, 64]);
  });
});
