// Ollama's native API through the official `ollama` npm client: the
// read-only part (list, show, ps, version, the root probe) against the real
// zest and the real llama-server on synthetic models.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ollama } from 'ollama';
import { chatBody, makeHome, startZest, waitFor } from '../lib/zest.mjs';

describe('Ollama API (official ollama client)', () => {
  let zest;
  let ollama;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny', 'embed-tiny': 'tiny-embed' }) });
    ollama = new Ollama({ host: zest.url });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('GET / and /api/version answer as Ollama does', async () => {
    const root = await zest.fetch('/');
    assert.equal(root.status, 200);
    assert.equal(await root.text(), 'Ollama is running');
    const version = await ollama.version();
    assert.match(version.version, /^\d+\.\d+\.\d+$/);
  });

  test('list: every model as name:tag, with its size, digest and details', async () => {
    const { models } = await ollama.list();
    const tiny = models.find((m) => m.name === 'tiny:latest');
    assert.ok(tiny, JSON.stringify(models.map((m) => m.name)));
    assert.equal(tiny.model, 'tiny:latest');
    assert.equal(tiny.size, fs.statSync(path.join(zest.home, 'models', 'tiny.gguf')).size);
    assert.match(tiny.digest, /^[0-9a-f]{64}$/);
    assert.equal(tiny.details.format, 'gguf');
    assert.ok(tiny.details.family.length > 0);
    assert.match(tiny.details.parameter_size, /^\d+(\.\d)?[MB]?$/);
    assert.ok(!Number.isNaN(Date.parse(tiny.modified_at)));
  });

  test('show: details, capabilities, model_info and the chat template', async () => {
    const show = await ollama.show({ model: 'tiny' });
    assert.equal(show.details.format, 'gguf');
    assert.ok(show.capabilities.includes('completion'), JSON.stringify(show.capabilities));
    assert.equal(show.model_info['general.architecture'], show.details.family);
    assert.equal(typeof show.template, 'string');
    const embed = await ollama.show({ model: 'embed-tiny:latest' });
    assert.deepEqual(embed.capabilities, ['embedding']);
  });

  test('show of an unknown model is a 404 in Ollama\'s shape', async () => {
    await assert.rejects(ollama.show({ model: 'nope' }), (e) => e.status_code === 404 && /model 'nope' not found/.test(e.error));
    const bad = await zest.json('/api/show', '{not json');
    assert.equal(bad.status, 400);
    assert.equal(typeof bad.data.error, 'string');
  });

  test('embed and the older embeddings run on the engine, in Ollama\'s shape', async () => {
    const one = await ollama.embed({ model: 'embed-tiny', input: 'hello' });
    assert.equal(one.model, 'embed-tiny');
    assert.equal(one.embeddings.length, 1);
    const width = one.embeddings[0].length;
    assert.ok(width > 0 && one.embeddings[0].every(Number.isFinite));
    assert.ok(one.prompt_eval_count > 0, JSON.stringify(one.prompt_eval_count));
    assert.ok(one.total_duration > 0);
    const two = await ollama.embed({ model: 'embed-tiny:latest', input: ['hello', 'a longer sentence here'] });
    assert.equal(two.embeddings.length, 2);
    assert.deepEqual(two.embeddings[0], one.embeddings[0], 'the same input, the same vector, in order');
    const legacy = await ollama.embeddings({ model: 'embed-tiny', prompt: 'hello' });
    assert.deepEqual(legacy.embedding, one.embeddings[0]);
    // A chat model cannot embed; an unknown one is a 404: Ollama's shape.
    await assert.rejects(ollama.embed({ model: 'tiny', input: 'x' }),
      (e) => e.status_code === 400 && /does not support embeddings/.test(e.error));
    await assert.rejects(ollama.embed({ model: 'nope', input: 'x' }), (e) => e.status_code === 404);
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.match(metrics, /^zest_requests_total\{endpoint="ollama_embed",model="embed-tiny",status="200"\} 2$/m);
  });

  test('a bad X-Queue-Timeout is a 400 in Ollama\'s shape', async () => {
    const r = await zest.json('/api/embed', { model: 'embed-tiny', input: 'x' }, { headers: { 'X-Queue-Timeout': 'soon' } });
    assert.equal(r.status, 400);
    assert.equal(typeof r.data.error, 'string', JSON.stringify(r.data));
  });

  test('copy registers a model under a new name; delete removes it (the registration, not the file)', async () => {
    await ollama.copy({ source: 'tiny:latest', destination: 'tiny-copy' });
    let names = (await ollama.list()).models.map((m) => m.name);
    assert.ok(names.includes('tiny-copy:latest'), JSON.stringify(names));
    await ollama.delete({ model: 'tiny-copy:latest' });
    names = (await ollama.list()).models.map((m) => m.name);
    assert.ok(!names.includes('tiny-copy:latest') && names.includes('tiny:latest'), JSON.stringify(names));
    assert.ok(fs.existsSync(path.join(zest.home, 'models', 'tiny.gguf')));
    await assert.rejects(ollama.delete({ model: 'tiny-copy' }), (e) => e.status_code === 404);
    await assert.rejects(ollama.copy({ source: 'nope', destination: 'x' }), (e) => e.status_code === 404);
  });

  test('ps: nothing, then the loaded model with its memory, context and expiry', async () => {
    await zest.json('/api/v1/unload', { model: 'embed-tiny' });  // loaded by the embed test
    assert.deepEqual((await ollama.ps()).models, []);
    assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
    // The keep-alive clock starts once the request has let go of the model,
    // a moment after its answer: until then expires_at is null (busy).
    let models;
    await waitFor(async () => {
      ({ models } = await ollama.ps());
      return models.length === 1 && models[0].expires_at !== null;
    }, { timeout: 5000, what: 'the model idle with an expiry' });
    const tiny = models[0];
    assert.equal(tiny.name, 'tiny:latest');
    assert.ok(tiny.size > 0);
    assert.equal(tiny.size_vram, 0);  // on the CPU here
    assert.ok(tiny.context_length > 0);
    const expires = Date.parse(tiny.expires_at);
    assert.ok(expires > Date.now() && expires < Date.now() + 11 * 60_000, tiny.expires_at);
  });
});
