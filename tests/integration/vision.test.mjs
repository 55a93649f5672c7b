// Images in chat through every API, with the real llama-server and a
// synthetic vision model and projector (zest-make-model --mmproj-out:
// random weights, so the answers are gibberish, but the engine really
// encodes each image into the projector's tokens). Sent by the official
// SDKs (openai, @anthropic-ai/sdk, ollama); what is checked is what the
// engine reports: an image adds exactly the projector's image tokens to
// the prompt, streamed and not, whichever API carried it. Then the checks
// zest makes before any engine sees an image: no projector, too many, too
// big, a header declaring too many pixels, a URL from a host not allowed,
// what is not an image; and WebP and TIFF converted to PNG.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import crypto from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { startFakeHub } from '../lib/fake_hub.mjs';
import { seriesValue } from '../lib/prometheus.mjs';
import { makeHome, startZest, syntheticVision, waitFor } from '../lib/zest.mjs';

// The whole prompt of the Ollama request `send` makes (it resolves to its
// prompt_eval_count), as the engine counted it: zest's prompt token total
// for `model` grows by it. prompt_eval_count is only what the engine
// evaluated, less what it found in its prompt cache. zest records a
// request a moment after its client has the answer, so the window opens
// once the `earlier` requests the caller sent to `model` are all counted
// (and each call waits for its own).
async function ollamaPrompt(zest, { model, earlier = 0 }, send) {
  const metrics = async () => (await zest.fetch('/metrics')).text();
  const requests = (text) => text.split('\n').filter((l) => l.startsWith('zest_requests_total{') && l.includes(`model="${model}"`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const total = (text) => seriesValue(text, `zest_prompt_tokens_total{model="${model}"}`);
  let text;
  await waitFor(async () => requests(text = await metrics()) >= earlier, { what: `${earlier} earlier request(s) to ${model} counted` });
  assert.equal(requests(text), earlier);
  const before = total(text);
  const evaluated = await send();
  await waitFor(async () => requests(text = await metrics()) > earlier, { what: 'the request in the totals' });
  const after = total(text);
  assert.ok(evaluated > 0 && evaluated <= after - before, `evaluated ${evaluated} of ${after - before}`);
  return after - before;
}

// A 37 x 23 test pattern written by ffmpeg in the format of `ext`.
function picture(ext, args = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-vision-'));
  try {
    const file = path.join(dir, `p.${ext}`);
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=37x23',
      ...args, '-frames:v', '1', '-y', file]);
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const dataUrl = (mime, bytes) => `data:${mime};base64,${bytes.toString('base64')}`;
const QUESTION = 'What is in this picture?';

describe('vision: images through every API', () => {
  let zest;
  let openai;
  let anthropic;
  let ollama;
  let imageTokens;
  const png = picture('png');
  before(async () => {
    imageTokens = syntheticVision().imageTokens;
    zest = await startZest({ home: makeHome({ seer: 'vision', viewer: 'vision', tiny: 'tiny' }) });
    openai = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: zest.url, apiKey: 'unused', maxRetries: 0 });
    ollama = new Ollama({ host: zest.url });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('the model lists vision, the plain one does not, and the projector is no model of its own', async () => {
    const { data } = (await zest.json('/v1/models')).data;
    const byId = Object.fromEntries(data.map((m) => [m.id, m]));
    assert.deepEqual(Object.keys(byId).sort(), ['seer', 'tiny', 'viewer']);
    assert.ok(byId.seer.capabilities.includes('vision'), JSON.stringify(byId.seer.capabilities));
    assert.ok(!byId.tiny.capabilities.includes('vision'));
    const show = await ollama.show({ model: 'seer' });
    assert.ok(show.capabilities.includes('vision'));
  });

  test('OpenAI chat: an image adds the projector\'s tokens to the prompt, streamed and not', async () => {
    const ask = (parts, stream) => openai.chat.completions.create({
      model: 'seer', max_tokens: 1, stream, ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: 'user', content: parts }],
    });
    const text = { type: 'text', text: QUESTION };
    const image = { type: 'image_url', image_url: { url: dataUrl('image/png', png) } };
    const without = (await ask([text], false)).usage.prompt_tokens;
    const withImage = (await ask([text, image], false)).usage.prompt_tokens;
    assert.equal(withImage - without, imageTokens);
    let streamed = null;
    for await (const chunk of await ask([text, image], true)) if (chunk.usage) streamed = chunk.usage.prompt_tokens;
    assert.equal(streamed, withImage);
    // Two images, two images' tokens.
    assert.equal((await ask([text, image, image], false)).usage.prompt_tokens - without, 2 * imageTokens);
  });

  test('Responses: input_image adds the same tokens, streamed and not', async () => {
    const ask = (content, stream) => openai.responses.create({
      model: 'seer', max_output_tokens: 1, stream, store: false, input: [{ role: 'user', content }],
    });
    const text = { type: 'input_text', text: QUESTION };
    const image = { type: 'input_image', image_url: dataUrl('image/png', png), detail: 'auto' };
    const without = (await ask([text], false)).usage.input_tokens;
    const withImage = (await ask([text, image], false)).usage.input_tokens;
    assert.equal(withImage - without, imageTokens);
    let streamed = null;
    for await (const event of await ask([text, image], true)) {
      // Cut at max_output_tokens: the last event is response.incomplete.
      if (event.type === 'response.completed' || event.type === 'response.incomplete') {
        streamed = event.response.usage.input_tokens;
      }
    }
    assert.equal(streamed, withImage);
  });

  test('Anthropic: a base64 image block adds the same tokens, streamed and not, also in a tool result', async () => {
    // The whole prompt: Anthropic counts it in parts, read from the cache and the rest.
    const prompt = (message) => message.usage.input_tokens + message.usage.cache_read_input_tokens;
    const ask = (content) => ({ model: 'seer', max_tokens: 1, messages: [{ role: 'user', content }] });
    const text = { type: 'text', text: QUESTION };
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } };
    const without = prompt(await anthropic.messages.create(ask([text])));
    const withImage = prompt(await anthropic.messages.create(ask([text, image])));
    assert.equal(withImage - without, imageTokens);
    const streamed = await anthropic.messages.stream(ask([text, image])).finalMessage();
    assert.equal(prompt(streamed), withImage);
    // A screenshot a tool returned, as coding agents send them.
    const toolTurn = (content) => ({
      model: 'seer', max_tokens: 1,
      tools: [{ name: 'screenshot', description: 'Takes a screenshot', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'Take a screenshot.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content }] },
      ],
    });
    // Its image goes to the model in a user turn after the tool results
    // (chat templates take images in user turns only): the same prompt as
    // that image sent beside the tool result, and the image's tokens more
    // than the tool result alone (plus the turn's own).
    const plain = prompt(await anthropic.messages.create(toolTurn([{ type: 'text', text: 'done' }])));
    const shot = prompt(await anthropic.messages.create(toolTurn([{ type: 'text', text: 'done' }, image])));
    const beside = toolTurn([{ type: 'text', text: 'done' }]);
    beside.messages[2].content.push(image);
    assert.equal(shot, prompt(await anthropic.messages.create(beside)));
    assert.ok(shot - plain >= imageTokens, `${shot} - ${plain}`);
  });

  test('Ollama: images in chat and generate (the SDK encodes the bytes) add the same tokens', async () => {
    // 'viewer': the same synthetic model as 'seer', for this test alone, so
    // that ollamaPrompt knows how many requests it had before each.
    let sent = 0;
    const prompt = (send) => ollamaPrompt(zest, { model: 'viewer', earlier: sent++ }, send);
    const chat = (images, stream) => prompt(async () => {
      const body = { model: 'viewer', options: { num_predict: 1 }, messages: [{ role: 'user', content: QUESTION, images }] };
      if (!stream) return (await ollama.chat({ ...body, stream: false })).prompt_eval_count;
      let last = null;
      for await (const part of await ollama.chat({ ...body, stream: true })) if (part.done) last = part.prompt_eval_count;
      return last;
    });
    const without = await chat(undefined, false);
    const withImage = await chat([new Uint8Array(png)], false);
    assert.equal(withImage - without, imageTokens);
    assert.equal(await chat([new Uint8Array(png)], true), withImage);
    const generate = (images) => prompt(async () =>
      (await ollama.generate({ model: 'viewer', prompt: QUESTION, images, stream: false, options: { num_predict: 1 } })).prompt_eval_count);
    assert.equal(await generate([png.toString('base64')]) - await generate(undefined), imageTokens);
  });

  test('WebP and TIFF reach the engine as PNG: the same tokens as the PNG', async () => {
    const ask = async (mime, bytes) => (await openai.chat.completions.create({
      model: 'seer', max_tokens: 1,
      messages: [{ role: 'user', content: [{ type: 'text', text: QUESTION }, { type: 'image_url', image_url: { url: dataUrl(mime, bytes) } }] }],
    })).usage.prompt_tokens;
    const reference = await ask('image/png', png);
    assert.equal(await ask('image/webp', picture('webp', ['-c:v', 'libwebp'])), reference);
    assert.equal(await ask('image/tiff', picture('tiff')), reference);
    assert.equal(await ask('image/jpeg', picture('jpg')), reference);
    // The bytes say what an image is, not the MIME type the client names.
    assert.equal(await ask('image/png', picture('gif')), reference);
  });

  test('refused before any engine sees them, in each API\'s own error shape', async () => {
    const image = { type: 'image_url', image_url: { url: dataUrl('image/png', png) } };
    const chat = (model, parts) => zest.json('/v1/chat/completions',
      { model, max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'text', text: QUESTION }, ...parts] }] });
    const instancesBefore = (await zest.instances()).map((i) => i.model).sort();

    // A model without a projector, in OpenAI's, Anthropic's and Ollama's shapes.
    const blind = await chat('tiny', [image]);
    assert.equal(blind.status, 400);
    assert.match(blind.data.error.message, /model 'tiny' has no vision/);
    assert.equal(blind.data.error.param, 'messages');
    await assert.rejects(anthropic.messages.create({ model: 'tiny', max_tokens: 1, messages: [{ role: 'user', content: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }] }] }),
    (e) => e.status === 400 && e.error?.error?.type === 'invalid_request_error' && /has no vision/.test(e.error.error.message));
    await assert.rejects(ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'x', images: [new Uint8Array(png)] }] }),
      (e) => e.status_code === 400 && /has no vision/.test(e.error));

    // Seventeen images: one more than limits.max_images.
    const many = await chat('seer', Array(17).fill(image));
    assert.equal(many.status, 400);
    assert.match(many.data.error.message, /holds 17 images; at most 16/);

    // A PNG header declaring 60000 x 50000 pixels in a few bytes: 413, unread.
    const bomb = Buffer.from(png);
    bomb.writeUInt32BE(60000, 16);
    bomb.writeUInt32BE(50000, 20);
    const huge = await chat('seer', [{ type: 'image_url', image_url: { url: dataUrl('image/png', bomb) } }]);
    assert.equal(huge.status, 413);
    assert.match(huge.data.error.message, /image 1 is 60000 x 50000 pixels; at most 33554432/);

    // Over limits.max_image_mb (20 MB) as sent.
    const big = Buffer.concat([png, Buffer.alloc(21 << 20)]);
    const tooBig = await chat('seer', [{ type: 'image_url', image_url: { url: dataUrl('image/png', big) } }]);
    assert.equal(tooBig.status, 413);
    assert.match(tooBig.data.error.message, /image 1 is over 20 MB/);

    // A URL: zest fetches none unless its host is allowed, and says how.
    const url = await chat('seer', [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]);
    assert.equal(url.status, 400);
    assert.match(url.data.error.message, /does not fetch images from example.com.*server\.image_url_hosts/);

    // What is not an image.
    const svg = await chat('seer', [{ type: 'image_url', image_url: { url: dataUrl('image/svg+xml', Buffer.from('<svg/>')) } }]);
    assert.equal(svg.status, 400);
    assert.match(svg.data.error.message, /image 1 is not an image zest reads/);

    // None of them started an engine.
    assert.deepEqual((await zest.instances()).map((i) => i.model).sort(), instancesBefore);
  });
});

describe('vision: image URLs from allowed hosts only', () => {
  let zest;
  let server;
  let port;
  const png = picture('png');
  before(async () => {
    // A local web server: /cat.png, a redirect to it, and a 404.
    server = http.createServer((req, res) => {
      if (req.url === '/cat.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      if (req.url === '/moved.png') return res.writeHead(302, { location: '/cat.png' }).end();
      return res.writeHead(404).end();
    });
    // On every IPv4 address, so that a name pointed at 127.0.0.1 would reach it.
    await new Promise((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = server.address().port;
    zest = await startZest({
      // 127.0.0.2 by address; localhost by name, standing for an allowed
      // name its owner pointed at this machine (DNS rebinding).
      home: makeHome({ seer: 'vision' }, { config: '[server]\nimage_url_hosts = ["127.0.0.2", "localhost"]\n' }),
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); server.close(); });

  test('zest fetches the image itself; redirects and errors are refused', async () => {
    const ask = (url) => zest.json('/v1/chat/completions', { model: 'seer', max_tokens: 1, messages: [{ role: 'user',
      content: [{ type: 'text', text: QUESTION }, { type: 'image_url', image_url: { url } }] }] });
    const byUrl = await ask(`http://127.0.0.2:${port}/cat.png`);
    assert.equal(byUrl.status, 200, JSON.stringify(byUrl.data));
    const inline = await ask(dataUrl('image/png', png));
    assert.equal(byUrl.data.usage.prompt_tokens, inline.data.usage.prompt_tokens);
    // A redirect could lead anywhere: not followed.
    const moved = await ask(`http://127.0.0.2:${port}/moved.png`);
    assert.equal(moved.status, 400);
    assert.match(moved.data.error.message, /image 1: fetching .* answered HTTP 302/);
    const missing = await ask(`http://127.0.0.2:${port}/nope.png`);
    assert.equal(missing.status, 400);
    assert.match(missing.data.error.message, /answered HTTP 404/);
    // Another host is still not fetched.
    const other = await ask(`http://127.0.0.3:${port}/cat.png`);
    assert.equal(other.status, 400);
    assert.match(other.data.error.message, /does not fetch images from 127\.0\.0\.3/);
    // An allowed name is fetched only from a public address or a listed
    // one: this one resolves to 127.0.0.1 and ::1 (issue 52; fetched before).
    const rebound = await ask(`http://localhost:${port}/cat.png`);
    assert.equal(rebound.status, 400, JSON.stringify(rebound.data));
    assert.match(rebound.data.error.message, /image 1: localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
  });
});

describe('vision: a model pulled with its projector', () => {
  let hub;
  let zest;
  let cache;
  const REPO = 'test-org/Seer-GGUF';
  before(async () => {
    const { model, mmproj } = syntheticVision();
    // The repo's layout as ggml-org publishes vision models: the model and
    // its projector in two precisions; zest takes the F16 one.
    hub = await startFakeHub({ repos: { [REPO]: { files: {
      'Seer-Q8_0.gguf': fs.readFileSync(model),
      'mmproj-Seer-f16.gguf': fs.readFileSync(mmproj),
      'mmproj-Seer-Q8_0.gguf': fs.readFileSync(mmproj),
    } } } });
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-hf-cache-'));
    zest = await startZest({ home: makeHome({}), env: { HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache } });
  });
  after(async () => {
    await zest.stop();
    zest.cleanup();
    await hub.close();
    fs.rmSync(cache, { recursive: true, force: true });
  });

  test('zest pull brings the F16 projector; the model sees; a corrupt image is the engine\'s 400', async () => {
    const pulled = await zest.json('/api/v1/pull', { model: REPO, stream: false });
    assert.equal(pulled.status, 200, JSON.stringify(pulled.data));
    const name = `${REPO}:Q8_0`;
    const { data } = (await zest.json('/v1/models')).data;
    const seer = data.find((m) => m.id === name);
    assert.ok(seer, JSON.stringify(data.map((m) => m.id)));
    assert.match(seer.mmproj, /mmproj-Seer-f16\.gguf$/);
    assert.ok(seer.capabilities.includes('vision'));
    assert.equal(data.filter((m) => /mmproj/.test(m.id)).length, 0, 'projectors are not models');

    const png = picture('png');
    const ask = (bytes) => zest.json('/v1/chat/completions', { model: name, max_tokens: 1, messages: [{ role: 'user',
      content: [{ type: 'text', text: QUESTION }, ...(bytes ? [{ type: 'image_url', image_url: { url: dataUrl('image/png', bytes) } }] : [])] }] });
    const without = await ask(null);
    const withImage = await ask(png);
    assert.equal(withImage.status, 200, JSON.stringify(withImage.data));
    assert.equal(withImage.data.usage.prompt_tokens - without.data.usage.prompt_tokens, syntheticVision().imageTokens);
    // The other three APIs, by their SDKs, on the pulled model.
    const anthropic = new Anthropic({ baseURL: zest.url, apiKey: 'unused', maxRetries: 0 });
    const message = await anthropic.messages.create({ model: name, max_tokens: 1, messages: [{ role: 'user', content: [
      { type: 'text', text: QUESTION },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }] }] });
    assert.ok(message.usage.input_tokens + message.usage.cache_read_input_tokens > syntheticVision().imageTokens);
    const openai = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const response = await openai.responses.create({ model: name, max_output_tokens: 1, store: false, input: [{ role: 'user',
      content: [{ type: 'input_text', text: QUESTION }, { type: 'input_image', image_url: dataUrl('image/png', png), detail: 'auto' }] }] });
    assert.ok(response.usage.input_tokens > syntheticVision().imageTokens);
    const ollama = new Ollama({ host: zest.url });
    // Four requests to it before: without, withImage, message, response.
    const chat = await ollamaPrompt(zest, { model: name, earlier: 4 }, async () => (await ollama.chat({ model: name, stream: false, options: { num_predict: 1 },
      messages: [{ role: 'user', content: QUESTION, images: [new Uint8Array(png)] }] })).prompt_eval_count);
    assert.equal(chat, withImage.data.usage.prompt_tokens);

    // A PNG whose header is sound and whose pixels are garbage passes zest's
    // checks; the engine cannot decode it and says so, in OpenAI's shape.
    const corrupt = Buffer.concat([png.subarray(0, 33), crypto.randomBytes(200)]);
    const broken = await ask(corrupt);
    assert.equal(broken.status, 400, JSON.stringify(broken.data));
    assert.equal(typeof broken.data.error.message, 'string');
    assert.ok(broken.data.error.message.length > 0);
    // The engine survived it: the next image is answered.
    assert.equal((await ask(png)).status, 200);
  });
});

describe('vision: the projector in the memory ledger', () => {
  let zest;
  before(async () => {
    // The same text model with a 0.3 MB projector and with a ~65 MB one.
    zest = await startZest({ home: makeHome({ seer: 'vision', wide: { vision: ['--mmproj-width', '1024'] } }) });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('the ledger counts the projector where the engine holds it: measured RSS grows as predicted', async () => {
    const engines = {};
    for (const model of ['seer', 'wide']) {
      const r = await zest.json('/api/v1/load', { model });
      assert.equal(r.status, 200, JSON.stringify(r.data));
    }
    for (const i of await zest.instances()) engines[i.model] = i;  // /api/v1/ps: with measured RSS
    const projectorBytes = (name) => fs.statSync(path.join(zest.home, 'models', `${name}.mmproj.gguf`)).size;
    // The prediction grows by the projector file's size, on the CPU (no GPU).
    const predicted = engines.wide.placement.predicted_bytes.CPU.total - engines.seer.placement.predicted_bytes.CPU.total;
    assert.equal(predicted, projectorBytes('wide') - projectorBytes('seer'));
    // The engines' resident memory grows by that much, give or take a quarter
    // (the encoder's buffers, allocator slack; both models share the rest).
    const measured = engines.wide.measured_rss_bytes - engines.seer.measured_rss_bytes;
    console.log(`projector: predicted ${(predicted / 2 ** 20).toFixed(1)} MiB more, measured ${(measured / 2 ** 20).toFixed(1)} MiB more`);
    assert.ok(Math.abs(measured - predicted) < predicted / 4,
      `measured ${(measured / 2 ** 20).toFixed(1)} MiB more, predicted ${(predicted / 2 ** 20).toFixed(1)} MiB`);
  });
});
