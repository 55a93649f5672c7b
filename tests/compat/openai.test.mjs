// The official OpenAI SDK against a running zest.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { engineGet, makeHome, startZest, waitFor } from '../lib/zest.mjs';

// `ignore_eos` (a llama-server field the SDK passes through): the synthetic
// model picks tokens at random and may otherwise end before its first
// token, which some SDK helpers cannot take.
describe('openai SDK', () => {
  let zest;
  let client;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny', embed: 'tiny-embed' }) });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('models.list and models.retrieve', async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    assert.deepEqual(ids.sort(), ['embed', 'tiny']);
    const m = await client.models.retrieve('tiny');
    assert.equal(m.id, 'tiny');
    assert.equal(m.object, 'model');
  });

  test('chat.completions.create', async () => {
    const r = await client.chat.completions.create({
      model: 'tiny', ignore_eos: true, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 8,
    });
    assert.equal(r.model, 'tiny');
    assert.equal(r.choices[0].message.role, 'assistant');
    assert.equal(typeof r.choices[0].message.content, 'string');
    assert.ok(r.usage.total_tokens > 0);
  });

  test('chat.completions.create with stream: true', async () => {
    const stream = await client.chat.completions.create({
      model: 'tiny', ignore_eos: true, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 12, stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(chunks >= 3, `${chunks} chunks`);
    assert.ok(text.length > 0);
    assert.ok(usage && usage.completion_tokens > 0);
  });

  test('the stream helper assembles a final completion', async () => {
    const runner = client.chat.completions.stream({
      model: 'tiny', ignore_eos: true, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 6,
    });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0].message.role, 'assistant');
  });

  test('aborting a stream from the client side', async () => {
    const stream = await client.chat.completions.create({
      model: 'tiny', ignore_eos: true, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3000, stream: true,
    });
    let n = 0;
    // Leaving the loop early is how SDK users stop a stream; the SDK then
    // aborts the HTTP request.
    for await (const chunk of stream) {
      assert.ok(chunk.choices);
      if (++n === 2) break;
    }
    // What the abort is for: the engine stops generating (its slot goes
    // idle) long before the 3000 tokens it was asked for are done.
    const instance = (await zest.instances()).find((i) => i.model === 'tiny');
    assert.ok(instance?.socket, 'the engine serving tiny');
    await waitFor(async () => (await engineGet(instance.socket, '/slots')).data.every((slot) => !slot.is_processing),
      { timeout: 1000, what: 'the engine\'s slots idle after the SDK left the stream' });
    // The server keeps serving afterwards.
    const r = await client.chat.completions.create({
      model: 'tiny', ignore_eos: true, messages: [{ role: 'user', content: 'again' }], max_tokens: 2,
    });
    assert.equal(r.object, 'chat.completion');
  });

  test('completions.create', async () => {
    const r = await client.completions.create({ model: 'tiny', ignore_eos: true, prompt: 'Once', max_tokens: 4 });
    assert.equal(typeof r.choices[0].text, 'string');
  });

  test('embeddings.create', async () => {
    const r = await client.embeddings.create({ model: 'embed', input: ['a', 'b', 'c'] });
    assert.equal(r.data.length, 3);
    assert.ok(r.data[0].embedding.length > 0);
  });

  test('errors surface as typed SDK errors', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'missing', messages: [{ role: 'user', content: 'x' }] }),
      (err) => err instanceof OpenAI.NotFoundError && err.code === 'model_not_found');
    await assert.rejects(
      client.chat.completions.create({ model: 'tiny', ignore_eos: true, messages: [] }),
      (err) => err instanceof OpenAI.BadRequestError && err.param === 'messages');
  });
});
