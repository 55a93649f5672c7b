// Model aliases ([aliases] in config.toml, globs allowed): an agent that
// insists on its own model names reaches a local model through every API,
// gets its own name back, and sees the aliases in /v1/models and `zest list`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { makeHome, startZest, zestBin } from '../lib/zest.mjs';

describe('model aliases', () => {
  let zest;
  before(async () => {
    const home = makeHome({ tiny: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'), [
      '[aliases]',
      '"claude-*" = "tiny"',
      '"claude-opus-*" = "ghost-model"  # more specific: wins for opus',
      '"gpt-4o" = "tiny"',
    ].join('\n') + '\n', { mode: 0o644 });
    zest = await startZest({ home });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('every API reaches the model by an alias and answers with the alias', async () => {
    const anthropic = new Anthropic({ baseURL: zest.url, apiKey: 'unused', maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(message.model, 'claude-sonnet-4-5');
    const openai = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: 'GPT-4o', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.model, 'GPT-4o');
    const response = await openai.responses.create({ model: 'gpt-4o', input: 'hi', max_output_tokens: 3, store: false });
    assert.equal(response.model, 'gpt-4o');
    const ollama = new Ollama({ host: zest.url });
    const reply = await ollama.chat({ model: 'claude-haiku:latest', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_predict: 3 } });
    assert.equal(reply.model, 'claude-haiku:latest');
  });

  test('a streamed chat or text completion through an alias names the alias in every chunk', async () => {
    const openai = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: 'gpt-4o', max_tokens: 4, stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chatModels = [];
    for await (const chunk of chat) chatModels.push(chunk.model);
    assert.ok(chatModels.length > 1, `${chatModels.length} chunks`);
    assert.deepEqual([...new Set(chatModels)], ['gpt-4o']);
    const text = await openai.completions.create({ model: 'gpt-4o', prompt: 'Once', max_tokens: 4, stream: true });
    const textModels = [];
    for await (const chunk of text) textModels.push(chunk.model);
    assert.ok(textModels.length > 1, `${textModels.length} chunks`);
    assert.deepEqual([...new Set(textModels)], ['gpt-4o']);
  });

  test('/v1/models shows them; an alias of a missing model says so', async () => {
    const models = (await zest.json('/v1/models')).data.data;
    const tiny = models.find((m) => m.id === 'tiny');
    assert.deepEqual([...tiny.aliases].sort(), ['claude-*', 'gpt-4o']);
    // `zest list` shows them too, under the models.
    const listed = execFileSync(zestBin, ['list'], { env: { ...process.env, ZEST_HOST: zest.url }, encoding: 'utf8' });
    assert.match(listed, /^ALIAS\s+MODEL$/m);
    assert.match(listed, /^claude-\*\s+tiny$/m);
    assert.match(listed, /^gpt-4o\s+tiny$/m);
    const missing = await zest.json('/v1/chat/completions', { model: 'claude-opus-4-1', max_tokens: 2, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(missing.status, 404);
    assert.match(missing.data.error.message, /alias of 'ghost-model', which is not here/);
    assert.equal((await zest.json('/v1/chat/completions', { model: 'gpt-5', max_tokens: 2, messages: [{ role: 'user', content: 'x' }] })).status, 404);
  });

  test('an alias that names a pattern instead of a model stops the server at start', () => {
    const home = makeHome({});
    fs.writeFileSync(path.join(home, 'config.toml'), '[aliases]\n"claude-*" = "qwen*"\n', { mode: 0o644 });
    const run = spawnSync(zestBin, ['serve', '--port', '0'], { env: { ...process.env, ZEST_HOME: home }, timeout: 20000, encoding: 'utf8' });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr + run.stdout, /must name one model/);
    fs.rmSync(home, { recursive: true, force: true });
  });
});
