// Forced tool calls and JSON schemas hold through every API zest speaks,
// whole and streamed, through the official clients, against the real zest
// and the real llama-server, whose grammar enforces them. The synthetic
// model's steering weights (src/tools/steering_weights.h) make it call a
// tool when one is offered and answer in text once the call is answered, as
// a tool-using model does; the grammar must then hold the call to the
// tool's schema, which ajv checks. Each case runs a few times: the model
// samples, so a grammar that held once by chance would fail another run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import Ajv from 'ajv';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { makeHome, startZest } from '../lib/zest.mjs';

const RUNS = 3;
const LIMIT = 300;  // tokens: a call on the synthetic model takes 40-110

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer', minimum: 1 },
    unit: { type: 'string', enum: ['c', 'f'] },
  },
  required: ['city', 'unit'],
};
const shell = {
  type: 'object',
  properties: { command: { type: 'array', items: { type: 'string' } }, timeout_ms: { type: 'integer' } },
  required: ['command'],
};
const ajv = new Ajv({ strict: false });
const validators = { get_weather: ajv.compile(weather), shell: ajv.compile(shell) };

// Asserts a call names one of the tools and its arguments fit its schema.
function assertValidCall(name, args, expectedName) {
  if (expectedName) assert.equal(name, expectedName);
  const validate = validators[name];
  assert.ok(validate, `a call of an unknown tool: ${name}`);
  assert.ok(validate(args), `${name}(${JSON.stringify(args)}): ${ajv.errorsText(validate.errors)}`);
}

const openAiTools = [
  { type: 'function', function: { name: 'get_weather', description: 'the weather in a city', parameters: weather } },
  { type: 'function', function: { name: 'shell', description: 'run a command', parameters: shell } },
];
const question = [{ role: 'user', content: 'What is the weather in Paris?' }];

describe('tool calls and JSON schemas through every API', () => {
  let zest;
  let openai;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny' }) });
    openai = new OpenAI({ baseURL: `${zest.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('OpenAI chat: tool_choice required and a named tool, whole and streamed', async () => {
    for (const [toolChoice, expected] of [['required', null], [{ type: 'function', function: { name: 'shell' } }, 'shell']]) {
      for (let run = 0; run < RUNS; run++) {
        // A seed per run: the synthetic model's call is 40-110 tokens with
        // most seeds, but an unlucky sample can write a string argument past
        // LIMIT; seeded, each run is the same every time.
        const body = { model: 'tiny', max_tokens: LIMIT, messages: question, tools: openAiTools, tool_choice: toolChoice,
          seed: 1000 + run };
        const whole = await openai.chat.completions.create(body);
        assert.equal(whole.choices[0].finish_reason, 'tool_calls', JSON.stringify(whole.choices[0]));
        for (const call of whole.choices[0].message.tool_calls) {
          assert.match(call.id, /\S/);
          assertValidCall(call.function.name, JSON.parse(call.function.arguments), expected);
        }
        // Streamed: the SDK puts the argument pieces together.
        const stream = openai.chat.completions.stream({ ...body, stream: true });
        const final = await stream.finalChatCompletion();
        assert.equal(final.choices[0].finish_reason, 'tool_calls');
        const calls = final.choices[0].message.tool_calls;
        assert.ok(calls.length >= 1);
        for (const call of calls) assertValidCall(call.function.name, JSON.parse(call.function.arguments), expected);
      }
    }
  });

  test('OpenAI chat: an agent loop, a call when tools are offered and text once it is answered', async () => {
    const first = await openai.chat.completions.create({ model: 'tiny', max_tokens: LIMIT, messages: question, tools: openAiTools });
    const call = first.choices[0].message.tool_calls?.[0];
    assert.ok(call, `tool_choice auto with tools offered: a call (${JSON.stringify(first.choices[0].message)})`);
    assertValidCall(call.function.name, JSON.parse(call.function.arguments));
    const second = await openai.chat.completions.create({
      model: 'tiny', max_tokens: 16, tools: openAiTools,
      messages: [...question, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' }],
    });
    assert.equal(second.choices[0].message.tool_calls, undefined, 'the call was answered: text now');
    assert.ok(second.choices[0].message.content.length > 0);
    // tool_choice none: no call, though tools are offered.
    const none = await openai.chat.completions.create({ model: 'tiny', max_tokens: 16, messages: question, tools: openAiTools, tool_choice: 'none' });
    assert.equal(none.choices[0].message.tool_calls, undefined);
  });

  test('OpenAI chat: response_format json_schema, whole and streamed', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' }, unit: { type: 'string', enum: ['c', 'f'] }, ok: { type: 'boolean' } }, required: ['n', 'unit', 'ok'], additionalProperties: false };
    const validate = ajv.compile(schema);
    const body = { model: 'tiny', max_tokens: LIMIT, messages: question, response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } } };
    for (let run = 0; run < RUNS; run++) {
      const whole = await openai.chat.completions.create(body);
      const value = JSON.parse(whole.choices[0].message.content);
      assert.ok(validate(value), `${whole.choices[0].message.content}: ${ajv.errorsText(validate.errors)}`);
      let text = '';
      for await (const chunk of await openai.chat.completions.create({ ...body, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
      assert.ok(validate(JSON.parse(text)), text);
    }
  });

  test('Anthropic Messages: tool_choice any and a named tool, whole and streamed', async () => {
    const client = new Anthropic({ baseURL: zest.url, apiKey: 'unused', maxRetries: 0 });
    const tools = openAiTools.map(({ function: f }) => ({ name: f.name, description: f.description, input_schema: f.parameters }));
    for (const [toolChoice, expected] of [[{ type: 'any' }, null], [{ type: 'tool', name: 'get_weather' }, 'get_weather']]) {
      for (let run = 0; run < RUNS; run++) {
        const body = { model: 'tiny', max_tokens: LIMIT, messages: question, tools, tool_choice: toolChoice };
        for (const message of [await client.messages.create(body), await client.messages.stream(body).finalMessage()]) {
          assert.equal(message.stop_reason, 'tool_use', JSON.stringify(message.content));
          const uses = message.content.filter((block) => block.type === 'tool_use');
          assert.ok(uses.length >= 1);
          for (const use of uses) {
            assert.match(use.id, /^toolu_/);
            assertValidCall(use.name, use.input, expected);
          }
        }
      }
    }
  });

  test('OpenAI Responses: tool_choice required and a named tool, whole and streamed', async () => {
    const tools = openAiTools.map(({ function: f }) => ({ type: 'function', name: f.name, description: f.description, parameters: f.parameters, strict: false }));
    for (const [toolChoice, expected] of [['required', null], [{ type: 'function', name: 'shell' }, 'shell']]) {
      for (let run = 0; run < RUNS; run++) {
        const body = { model: 'tiny', max_output_tokens: LIMIT, input: 'What is the weather in Paris?', tools, tool_choice: toolChoice, store: false };
        const whole = await openai.responses.create(body);
        const calls = whole.output.filter((item) => item.type === 'function_call');
        assert.ok(calls.length >= 1, JSON.stringify(whole.output));
        for (const call of calls) assertValidCall(call.name, JSON.parse(call.arguments), expected);
        // Streamed: the argument deltas add up to the item's arguments.
        let deltas = '';
        let done = null;
        for await (const event of await openai.responses.create({ ...body, stream: true })) {
          if (event.type === 'response.function_call_arguments.delta') deltas += event.delta;
          if (event.type === 'response.completed') done = event.response;
        }
        const streamed = done.output.filter((item) => item.type === 'function_call');
        assert.ok(streamed.length >= 1);
        assert.equal(deltas, streamed.map((call) => call.arguments).join(''));
        for (const call of streamed) assertValidCall(call.name, JSON.parse(call.arguments), expected);
      }
    }
  });

  test('Ollama chat: tools offered give tool_calls with arguments that fit, whole and streamed', async () => {
    const ollama = new Ollama({ host: zest.url });
    for (let run = 0; run < RUNS; run++) {
      const body = { model: 'tiny', messages: question, tools: openAiTools, options: { num_predict: LIMIT } };
      const whole = await ollama.chat({ ...body, stream: false });
      assert.ok(whole.message.tool_calls?.length >= 1, JSON.stringify(whole.message));
      for (const call of whole.message.tool_calls) assertValidCall(call.function.name, call.function.arguments);
      const calls = [];
      for await (const part of await ollama.chat({ ...body, stream: true })) calls.push(...(part.message.tool_calls ?? []));
      assert.ok(calls.length >= 1);
      for (const call of calls) assertValidCall(call.function.name, call.function.arguments);
    }
  });
});
