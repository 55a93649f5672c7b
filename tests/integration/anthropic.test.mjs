// Anthropic's Messages API through the official `@anthropic-ai/sdk` client,
// unchanged, against the real zest and the real llama-server on synthetic
// models: whole and streamed answers with real usage, Anthropic's event
// sequence, tool use and tool results, thinking, count_tokens, errors in
// Anthropic's shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { makeHome, startZest } from '../lib/zest.mjs';

describe('Anthropic Messages API (official @anthropic-ai/sdk client)', () => {
  let zest;
  let client;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny', 'embed-tiny': 'tiny-embed' }) });
    client = new Anthropic({ baseURL: zest.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  // Random weights may end the turn before the limit.
  function assertStop(message, maxTokens) {
    assert.ok(['max_tokens', 'end_turn'].includes(message.stop_reason), message.stop_reason);
    if (message.stop_reason === 'max_tokens') assert.equal(message.usage.output_tokens, maxTokens);
    else assert.ok(message.usage.output_tokens <= maxTokens);
  }

  test('create: a message with text content and the engine\'s usage', async () => {
    const message = await client.messages.create({
      model: 'tiny', max_tokens: 8, system: [{ type: 'text', text: 'be brief' }],
      messages: [{ role: 'user', content: 'hi' }], temperature: 0.7, top_k: 20, top_p: 0.9,
      stop_sequences: ['zzzz'], metadata: { user_id: 'u1' },
    });
    assert.match(message.id, /^msg_/);
    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.equal(message.model, 'tiny');
    assert.equal(message.content[0].type, 'text');
    assert.ok(message.content[0].text.length > 0);
    assertStop(message, 8);
    assert.ok(message.usage.input_tokens > 5, JSON.stringify(message.usage));
  });

  test('stream: Anthropic\'s event sequence, the text whole in the final message', async () => {
    const stream = client.messages.stream({ model: 'tiny', max_tokens: 12, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] });
    const types = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta') {
        assert.equal(event.delta.type, 'text_delta');
        text += event.delta.text;
      }
    }
    const final = await stream.finalMessage();
    assert.equal(types[0], 'message_start');
    assert.equal(types.at(-1), 'message_stop');
    assert.equal(types.at(-2), 'message_delta');
    const body = types.slice(1, -2);
    assert.equal(body[0], 'content_block_start');
    assert.equal(body.at(-1), 'content_block_stop');
    assert.ok(body.slice(1, -1).every((t) => t === 'content_block_delta'), types.join(' '));
    assert.equal(final.content[0].text, text);
    assertStop(final, 12);
    assert.ok(final.usage.input_tokens > 0, 'real input tokens in the closing usage');
    // The raw bytes: named events, a ping after message_start.
    const raw = await zest.fetch('/v1/messages', { method: 'POST', headers: { 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'tiny', max_tokens: 3, stream: true, messages: [{ role: 'user', content: 'x' }] }) });
    assert.match(raw.headers.get('content-type'), /^text\/event-stream/);
    const events = (await raw.text()).split('\n').filter((l) => l.startsWith('event: ')).map((l) => l.slice(7));
    assert.deepEqual(events.slice(0, 2), ['message_start', 'ping']);
  });

  test('tools: definitions, tool_use and tool_result history, every tool_choice', async () => {
    const tools = [{ name: 'get_weather', description: 'the weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const messages = [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] }, { type: 'text', text: 'and tomorrow?' }] },
    ];
    const plain = await client.messages.countTokens({ model: 'tiny', messages: [{ role: 'user', content: 'weather in Paris?' }] });
    const withTools = await client.messages.countTokens({ model: 'tiny', messages, tools });
    assert.ok(withTools.input_tokens > plain.input_tokens + 20, `${withTools.input_tokens} vs ${plain.input_tokens}`);
    for (const tool_choice of [{ type: 'auto' }, { type: 'none' }]) {
      const message = await client.messages.create({ model: 'tiny', max_tokens: 6, messages, tools, tool_choice });
      assert.equal(message.type, 'message');
      // Anthropic's parts of the prompt: what was read from the cache and the rest.
      assert.equal(message.usage.input_tokens + message.usage.cache_read_input_tokens, withTools.input_tokens,
        'count_tokens counts what create sends');
    }
  });

  test('thinking is accepted (enabled with a budget, or disabled); a budget Anthropic refuses is 400', async () => {
    for (const [thinking, maxTokens] of [[{ type: 'enabled', budget_tokens: 1024 }, 1025], [{ type: 'disabled' }, 4]]) {
      const message = await client.messages.create({ model: 'tiny', max_tokens: maxTokens, thinking, messages: [{ role: 'user', content: 'think' }] });
      assert.equal(message.type, 'message');
    }
    for (const [thinking, pattern] of [[{ type: 'enabled', budget_tokens: 512 }, /1024/], [{ type: 'enabled', budget_tokens: 4096 }, /greater than thinking.budget_tokens/]]) {
      await assert.rejects(client.messages.create({ model: 'tiny', max_tokens: 2048, thinking, messages: [{ role: 'user', content: 'think' }] }), (e) => {
        assert.equal(e.status, 400);
        assert.equal(e.error.error.type, 'invalid_request_error');
        assert.match(e.error.error.message, pattern);
        return true;
      });
    }
  });

  test('errors are Anthropic\'s: type and message, with the right status', async () => {
    const rejects = (promise, status, type, pattern) => assert.rejects(promise, (e) => {
      assert.equal(e.status, status, JSON.stringify(e.error));
      assert.equal(e.error.type, 'error');
      assert.equal(e.error.error.type, type);
      assert.match(e.error.error.message, pattern);
      return true;
    });
    const user = [{ role: 'user', content: 'hi' }];
    await rejects(client.messages.create({ model: 'nope', max_tokens: 4, messages: user }), 404, 'not_found_error', /nope/);
    await rejects(client.messages.create({ model: 'tiny', messages: user }), 400, 'invalid_request_error', /max_tokens/);
    await rejects(client.messages.create({ model: 'tiny', max_tokens: 4, messages: [{ role: 'tool', content: 'x' }] }), 400, 'invalid_request_error', /messages\[0\]\.role/);
    // As Claude Code sends them: a system message among the turns, the server's web search (left out).
    const taken = await client.messages.create({ model: 'tiny', max_tokens: 4, messages: [...user, { role: 'system', content: 'be brief' }, { role: 'assistant', content: 'ok' }, ...user], tools: [{ type: 'web_search_20250305', name: 'web_search' }] });
    assert.equal(taken.type, 'message');
    await rejects(client.messages.create({ model: 'tiny', max_tokens: 4, messages: user, tools: [{ type: 'web_search_20250305', name: 'web_search' }], tool_choice: { type: 'tool', name: 'web_search' } }), 400, 'invalid_request_error', /tool Anthropic's servers run/);
    await rejects(client.messages.create({ model: 'tiny', max_tokens: 4, messages: user, mcp_servers: [{ type: 'url', url: 'https://example.com', name: 'x' }] }), 400, 'invalid_request_error', /mcp_servers/);
    await rejects(client.messages.create({ model: 'tiny', max_tokens: 4, messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }), 400, 'invalid_request_error', /'video' blocks/);
    await rejects(client.messages.create({ model: 'embed-tiny', max_tokens: 4, messages: user }), 400, 'invalid_request_error', /embedding model/);
    await rejects(client.messages.countTokens({ model: 'nope', messages: user }), 404, 'not_found_error', /nope/);
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.match(metrics, /^zest_requests_total\{api="anthropic",endpoint="anthropic_messages",model="tiny",status="200"\} \d+$/m);
    assert.match(metrics, /^zest_completion_tokens_total\{model="tiny"\} \d+$/m);
  });
});
