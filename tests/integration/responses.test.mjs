// OpenAI's Responses API through the official `openai` SDK's `responses`,
// unchanged, against the real zest and the real llama-server on synthetic
// models: whole and streamed answers with their events, stored responses
// and previous_response_id, store:false with the whole input each turn (as
// Codex sends it), function calls and their outputs, JSON schemas, errors,
// and stored responses private to the key that made them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { jsonObjectOf, makeHome, quoteBracePreset, startZest, waitFor } from '../lib/zest.mjs';

describe('OpenAI Responses API (official openai client)', () => {
  let zest;
  let client;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny', 'quote-brace': quoteBracePreset }) });
    client = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  // Random weights may end the turn before the limit.
  function assertDone(response, limit) {
    assert.ok(['completed', 'incomplete'].includes(response.status), response.status);
    if (response.status === 'incomplete') {
      assert.equal(response.incomplete_details.reason, 'max_output_tokens');
      assert.equal(response.usage.output_tokens, limit);
    }
    assert.ok(response.usage.input_tokens > 0);
    assert.equal(response.usage.total_tokens, response.usage.input_tokens + response.usage.output_tokens);
  }

  test('create: output_text, usage, the request echoed, stored by default', async () => {
    const response = await client.responses.create({ model: 'tiny', input: 'hi', instructions: 'be brief', max_output_tokens: 8, temperature: 0.5, metadata: { run: '1' } });
    assert.match(response.id, /^resp_/);
    assert.equal(response.object, 'response');
    assert.equal(response.model, 'tiny');
    assert.equal(response.instructions, 'be brief');
    assert.equal(response.max_output_tokens, 8);
    assert.deepEqual(response.metadata, { run: '1' });
    assert.equal(response.output[0].type, 'message');
    assert.equal(response.output[0].role, 'assistant');
    assert.ok(response.output_text.length > 0, 'the SDK\'s output_text helper reads output_text parts');
    assertDone(response, 8);
    const got = await client.responses.retrieve(response.id);
    assert.deepEqual(got, response);
    const items = await client.responses.inputItems.list(response.id);
    assert.equal(items.data.length, 1);
    assert.equal(items.data[0].content[0].text, 'hi');
    // On disk a moment later: the store writes behind (response_store.h).
    // Without keys every local client is one owner: responses/local/.
    const dir = path.join(zest.home, 'responses', 'local');
    const file = path.join(dir, `${response.id}.json`);
    await waitFor(() => fs.existsSync(file), { what: 'the stored response file' });
    assert.deepEqual(fs.readdirSync(path.join(zest.home, 'responses')), ['local']);
    assert.deepEqual(fs.readdirSync(dir), [`${response.id}.json`]);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  test('stream: the documented events in order, the final response whole', async () => {
    const stream = await client.responses.create({ model: 'tiny', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }], max_output_tokens: 12, stream: true });
    const types = [];
    let text = '';
    let final;
    let sequence = -1;
    for await (const event of stream) {
      types.push(event.type);
      assert.equal(event.sequence_number, sequence + 1);
      sequence = event.sequence_number;
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
    }
    assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    assert.deepEqual(types.slice(-4, -1), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done']);
    assert.ok(types.slice(4, -4).every((t) => t === 'response.output_text.delta'), types.join(' '));
    assert.equal(final.output[0].content[0].text, text);
    assertDone(final, 12);
    const stored = await client.responses.retrieve(final.id);
    delete stored.output_text;  // the SDK's helper, added to what it fetched
    assert.deepEqual(stored, final, 'stored as streamed');
  });

  test('previous_response_id continues the stored conversation; store:false keeps nothing', async () => {
    const first = await client.responses.create({ model: 'tiny', input: 'my name is Ada', max_output_tokens: 4 });
    const second = await client.responses.create({ model: 'tiny', input: 'what is my name?', previous_response_id: first.id, max_output_tokens: 4 });
    assert.equal(second.previous_response_id, first.id);
    // What the next turn continues from: each turn once, the instructions
    // of neither (the file is zest's own record of the conversation).
    const third = await client.responses.create({ model: 'tiny', input: 'and again?', instructions: 'be brief', previous_response_id: second.id, max_output_tokens: 4 });
    const thirdFile = path.join(zest.home, 'responses', 'local', `${third.id}.json`);
    await waitFor(() => fs.existsSync(thirdFile), { what: 'the stored response file' });
    const stored = JSON.parse(fs.readFileSync(thirdFile, 'utf8'));
    assert.deepEqual(stored.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    assert.deepEqual(stored.messages.filter((m) => m.role === 'user').map((m) => m.content), ['my name is Ada', 'what is my name?', 'and again?']);
    // The engine saw both turns and the first answer: more input tokens
    // than the question alone.
    const alone = await client.responses.create({ model: 'tiny', input: 'what is my name?', max_output_tokens: 4, store: false });
    assert.ok(second.usage.input_tokens > alone.usage.input_tokens + 5, `${second.usage.input_tokens} vs ${alone.usage.input_tokens}`);
    await assert.rejects(client.responses.retrieve(alone.id), (e) => e.status === 404);
    // Codex's way: store:false, the whole conversation each turn, with
    // function calls, their outputs and reasoning items.
    const replay = await client.responses.create({
      model: 'tiny', store: false, max_output_tokens: 4,
      tools: [{ type: 'function', name: 'shell', description: 'run a command', parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } }],
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'you are a coding agent' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'I should run ls' }], encrypted_content: null },
        { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'README.md\nsrc' },
      ],
    });
    assert.equal(replay.store, false);
    assert.ok(replay.usage.input_tokens > 40, 'the tools and every turn are in the prompt');
    // Deleting: gone for good.
    const deleted = await client.responses.delete(first.id);
    assert.deepEqual(deleted, { id: first.id, object: 'response.deleted', deleted: true });
    await assert.rejects(client.responses.retrieve(first.id), (e) => e.status === 404);
    await assert.rejects(client.responses.create({ model: 'tiny', input: 'x', previous_response_id: first.id }), (e) => e.status === 404);
  });

  // On the quote-brace model (tests/lib/zest.mjs): its answer is a JSON
  // object only when llama-server's grammar holds it. This API takes no
  // seed; the model's preference holds on any.
  test('text.format json_object: a JSON object, whole and streamed', async () => {
    const request = { model: 'quote-brace', input: 'json', max_output_tokens: 40, store: false };
    const alone = await client.responses.create(request);
    assert.ok(alone.output_text.length > 0 && jsonObjectOf(alone.output_text) === null, `without text.format: ${alone.output_text}`);
    const json = { ...request, text: { format: { type: 'json_object' } } };
    for (let i = 0; i < 5; i++) {
      const whole = await client.responses.create(json);
      assert.equal(whole.status, 'completed', JSON.stringify(whole.incomplete_details));
      assert.ok(jsonObjectOf(whole.output_text), `run ${i}: ${whole.output_text}`);
      let text = '';
      let final;
      for await (const event of await client.responses.create({ ...json, stream: true })) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
      }
      assert.ok(jsonObjectOf(text), `run ${i}, streamed: ${text}`);
      assert.equal(final.status, 'completed');
      assert.equal(final.output[0].content[0].text, text);
    }
  });

  test('a JSON schema in text.format holds; errors are OpenAI\'s', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' }, ok: { type: 'boolean' } }, required: ['n', 'ok'], additionalProperties: false };
    const response = await client.responses.create({ model: 'tiny', input: 'json', max_output_tokens: 200, text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } } });
    const value = JSON.parse(response.output_text);
    assert.ok(Number.isInteger(value.n) && typeof value.ok === 'boolean', response.output_text);
    const rejects = (promise, status, pattern) => assert.rejects(promise, (e) => {
      assert.equal(e.status, status, e.message);
      assert.match(e.message, pattern);
      return true;
    });
    await rejects(client.responses.create({ model: 'nope', input: 'x' }), 404, /nope/);
    await rejects(client.responses.create({ model: 'tiny' }), 400, /input is required/);
    // A built-in tool is left out of the prompt; forcing one is refused.
    const hosted = await client.responses.create({ model: 'tiny', input: 'x', max_output_tokens: 4, tools: [{ type: 'web_search', external_web_access: false }] });
    assertDone(hosted, 4);
    // Left out: the engine's prompt is the one it gets with no tools at all
    // (a tool in the prompt would add its template's tokens).
    const bare = await client.responses.create({ model: 'tiny', input: 'x', max_output_tokens: 4 });
    assert.equal(hosted.usage.input_tokens, bare.usage.input_tokens, 'web_search added nothing to the prompt');
    const offered = await client.responses.create({ model: 'tiny', input: 'x', max_output_tokens: 4,
      tools: [{ type: 'function', name: 'search', description: 'search the web', parameters: { type: 'object', properties: {} } }] });
    assert.ok(offered.usage.input_tokens > bare.usage.input_tokens, 'a function tool does reach the prompt');
    await rejects(client.responses.create({ model: 'tiny', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }), 400, /tool_choice forces web_search, a built-in tool/);
    await rejects(client.responses.create({ model: 'tiny', input: 'x', tools: [{ type: 'teleport' }] }), 400, /tools\[0\]\.type 'teleport' is not a tool type/);
    await rejects(client.responses.create({ model: 'tiny', input: [{ type: 'item_reference', id: 'x' }] }), 400, /item_reference/);
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.match(metrics, /^zest_requests_total\{api="openai",endpoint="responses",model="tiny",status="200"\} \d+$/m);
  });
});
