// Ollama's native API through the official `ollama` npm client (list,
// show, ps, version, the root probe, embed, copy/delete, create, chat and generate)
// against the real zest and the real llama-server on synthetic models.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ollama } from 'ollama';
import { chatBody, jsonObjectOf, makeHome, quoteBracePreset, startZest, waitFor } from '../lib/zest.mjs';
import { freePort } from '../lib/prometheus.mjs';

describe('Ollama API (official ollama client)', () => {
  let zest;
  let ollama;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny', 'embed-tiny': 'tiny-embed', 'quote-brace': quoteBracePreset }) });
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
    assert.match(metrics, /^zest_requests_total\{api="ollama",endpoint="ollama_embed",model="embed-tiny",status="200"\} 2$/m);
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

  // The final chunk's counts and durations, as Ollama reports them.
  function assertTotals(last, predicted) {
    assert.equal(last.done, true);
    // Random weights may pick the end of turn before the limit.
    assert.ok(['length', 'stop'].includes(last.done_reason), last.done_reason);
    if (last.done_reason === 'length') assert.equal(last.eval_count, predicted);
    else assert.ok(last.eval_count <= predicted);
    assert.ok(last.prompt_eval_count > 0, JSON.stringify(last));
    for (const key of ['total_duration', 'prompt_eval_duration', 'eval_duration']) {
      assert.ok(Number.isInteger(last[key]) && last[key] > 0, `${key}: ${JSON.stringify(last)}`);
    }
    // The time before the engine began on the prompt: a part of the whole
    // (what it is on a cold and on a warm request: the test below).
    assert.ok(Number.isInteger(last.load_duration) && last.load_duration >= 0, JSON.stringify(last));
    assert.ok(last.load_duration < last.total_duration, JSON.stringify(last));
    assert.ok(last.total_duration >= last.prompt_eval_duration + last.eval_duration, JSON.stringify(last));
    assert.ok(!Number.isNaN(Date.parse(last.created_at)));
  }

  // Ollama's load_duration is the wait for the model: on a cold request it
  // holds the engine's whole load (zest_model_load_duration_seconds times
  // spawn to ready, inside the request), on a warm one it does not.
  test('load_duration holds the model\'s load on a cold request, and not on a warm one', async () => {
    const loads = async () => Number(/^zest_model_load_duration_seconds_sum\{model="tiny"\} ([\d.e+-]+)$/m
      .exec(await (await zest.fetch('/metrics')).text())?.[1] ?? 0);
    assert.equal((await zest.json('/api/v1/load', { model: 'tiny' })).status, 200);
    assert.equal((await zest.json('/api/v1/unload', { model: 'tiny' })).status, 200);
    await waitFor(async () => !(await zest.instances()).some((i) => i.model === 'tiny'), { what: 'tiny unloaded' });
    const before = await loads();
    const cold = await ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_predict: 2 } });
    const load = (await loads()) - before;
    assert.ok(load > 0, 'the request loaded tiny');
    // The metric's seconds are printed rounded: a microsecond of slack.
    assert.ok(cold.load_duration >= load * 1e9 - 1e3, `load_duration ${cold.load_duration} ns, the load took ${load} s`);
    const warm = await ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_predict: 2 } });
    assert.equal((await loads()) - before, load, 'no second load');
    assert.ok(warm.load_duration < load * 1e9, `warm load_duration ${warm.load_duration} ns against a ${load} s load`);
  });

  test('create: a model made from another (system, parameters) runs on its engine; a GGUF path; 501 for what does not map', async () => {
    const statuses = [];
    for await (const part of await ollama.create({ model: 'mario', from: 'tiny:latest', system: 'You are Mario from Super Mario Bros.', parameters: { temperature: 0.2, num_predict: 3, stop: ['zz', 'yy'] }, stream: true })) statuses.push(part.status);
    assert.equal(statuses.at(-1), 'success', JSON.stringify(statuses));
    assert.ok((await ollama.list()).models.some((m) => m.name === 'mario:latest'));
    const show = await ollama.show({ model: 'mario' });
    assert.equal(show.system, 'You are Mario from Super Mario Bros.');
    assert.match(show.parameters, /^temperature 0\.2$/m);
    assert.match(show.parameters, /^stop zz$/m);
    assert.match(show.modelfile, /^FROM tiny$/m);
    assert.match(show.modelfile, /^SYSTEM """You are Mario/m);
    // Its requests get the system prompt and num_predict 3, through Ollama's
    // API and OpenAI's alike, on tiny's engine: no second engine.
    const user = [{ role: 'user', content: 'hi' }];
    const plain = await ollama.chat({ model: 'tiny', messages: user, stream: false, options: { num_predict: 3 } });
    const mario = await ollama.chat({ model: 'mario', messages: user, stream: false });
    assert.equal(mario.model, 'mario');
    assert.ok(mario.eval_count <= 3, JSON.stringify(mario));
    assert.ok(mario.prompt_eval_count > plain.prompt_eval_count + 5, `${mario.prompt_eval_count} vs ${plain.prompt_eval_count}: the system prompt`);
    const openai = await zest.json('/v1/chat/completions', { model: 'mario', messages: user });
    assert.equal(openai.status, 200);
    assert.ok(openai.data.usage.completion_tokens <= 3);
    assert.equal(openai.data.usage.prompt_tokens, mario.prompt_eval_count);
    // The request's own system message and options win.
    const own = await ollama.chat({ model: 'mario', messages: [{ role: 'system', content: 'x' }, ...user], stream: false, options: { num_predict: 5 } });
    assert.ok(own.prompt_eval_count < mario.prompt_eval_count);
    assert.deepEqual((await zest.instances()).map((i) => i.model).filter((m) => m !== 'embed-tiny'), ['tiny']);
    // ... and tiny's queue: no queue of its own.
    const queues = (await zest.json('/api/v1/stats')).data.queues.map((q) => q.model);
    assert.ok(queues.includes('tiny') && !queues.includes('mario'), JSON.stringify(queues));
    // One made from it layers on it; deleting a made model keeps its base and engine.
    await ollama.create({ model: 'luigi', from: 'mario', parameters: { num_predict: 2 }, stream: false });
    const luigi = await ollama.show({ model: 'luigi' });
    assert.equal(luigi.system, 'You are Mario from Super Mario Bros.');
    assert.match(luigi.parameters, /^num_predict 2$/m);
    assert.ok((await ollama.chat({ model: 'luigi', messages: user, stream: false })).eval_count <= 2);
    for (const model of ['luigi', 'mario']) await ollama.delete({ model });
    const names = (await ollama.list()).models.map((m) => m.name);
    assert.ok(!names.includes('mario:latest') && names.includes('tiny:latest'), JSON.stringify(names));
    assert.deepEqual((await zest.instances()).map((i) => i.model).filter((m) => m !== 'embed-tiny'), ['tiny']);
    // A GGUF file on this machine, as `zest add` registers one (raw: the
    // ollama-js client refuses local paths itself).
    const file = path.join(zest.home, 'models', 'tiny.gguf');
    const created = await zest.json('/api/create', { model: 'from-file', from: file, stream: false });
    assert.deepEqual([created.status, created.data], [200, { status: 'success' }]);
    assert.ok((await ollama.list()).models.some((m) => m.name === 'from-file:latest'));
    await ollama.delete({ model: 'from-file' });
    assert.ok(fs.existsSync(file), 'the file stays');
    // What zest cannot create: 501 with what to do instead; a missing base: 404.
    for (const [extra, pattern] of [[{ files: { 'm.gguf': 'sha256:' + '0'.repeat(64) } }, /zest add/], [{ template: '{{ .Prompt }}' }, /Go templates/], [{ quantize: 'q4_K_M' }, /quantize/]]) {
      const r = await zest.json('/api/create', { model: 'x', from: 'tiny', ...extra });
      assert.equal(r.status, 501, JSON.stringify(r.data));
      assert.match(r.data.error, pattern);
    }
    await assert.rejects(ollama.create({ model: 'x', from: 'nope', stream: false }), (e) => e.status_code === 404);
    await assert.rejects(ollama.create({ model: 'x', stream: false }), (e) => e.status_code === 400);
  });

  test('chat: a whole answer, then a stream of NDJSON lines ending in real counts', async () => {
    const whole = await ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_predict: 8 } });
    assert.equal(whole.model, 'tiny');
    assert.equal(whole.message.role, 'assistant');
    assert.ok(whole.message.content.length > 0);
    assertTotals(whole, 8);
    const parts = [];
    for await (const part of await ollama.chat({ model: 'tiny:latest', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello' }], stream: true, options: { num_predict: 12, temperature: 0.5, top_k: 20, seed: 7, stop: ['zzzz'] } })) {
      parts.push(part);
    }
    assert.ok(parts.length >= 2, JSON.stringify(parts));
    for (const part of parts.slice(0, -1)) {
      assert.equal(part.done, false);
      assert.equal(part.model, 'tiny:latest', 'the name as the client spelled it');
      assert.equal(part.message.role, 'assistant');
    }
    assert.ok(parts.slice(0, -1).map((p) => p.message.content).join('').length > 0);
    assertTotals(parts.at(-1), 12);
    // The raw bytes: one JSON object per line, as application/x-ndjson.
    const raw = await zest.fetch('/api/chat', { method: 'POST', body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'x' }], options: { num_predict: 3 } }) });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type'), /^application\/x-ndjson/);
    const lines = (await raw.text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.at(-1).done, true, 'stream is Ollama\'s default');
  });

  test('chat: a conversation with tool calls and their results; format as a JSON schema', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'the weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const history = await ollama.chat({
      model: 'tiny', tools, stream: false, options: { num_predict: 4 },
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
        { role: 'tool', content: '{"sky": "clear"}', tool_name: 'get_weather' },
      ],
    });
    assert.equal(history.done, true);
    assert.ok(history.prompt_eval_count > 20, 'the tools and the call are in the prompt');
    // The schema holds even on random weights (llama-server's grammar).
    const schema = { type: 'object', properties: { n: { type: 'integer' }, ok: { type: 'boolean' } }, required: ['n', 'ok'] };
    for (const stream of [false, true]) {
      let content = '';
      if (stream) {
        for await (const part of await ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'json please' }], format: schema, stream: true, options: { num_predict: 200 } })) content += part.message.content;
      } else {
        content = (await ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'json please' }], format: schema, stream: false, options: { num_predict: 200 } })).message.content;
      }
      const value = JSON.parse(content);
      assert.ok(Number.isInteger(value.n) && typeof value.ok === 'boolean', content);
    }
  });

  // On the quote-brace model (tests/lib/zest.mjs): its answer is a JSON
  // object only when llama-server's grammar holds it. Generate runs on the
  // chat route when templated, on the text completion route when raw or
  // with a suffix.
  test('format "json": a JSON object from chat and every kind of generate, whole and streamed', async () => {
    const model = 'quote-brace';
    const messages = [{ role: 'user', content: 'json please' }];
    const generates = [{ prompt: 'json please' }, { prompt: 'json please', raw: true }, { prompt: 'const answer = ', suffix: ';\n' }];
    const answer = async (request, stream) => {
      const chat = 'messages' in request;
      if (!stream) {
        const whole = await (chat ? ollama.chat({ ...request, stream }) : ollama.generate({ ...request, stream }));
        assert.equal(whole.done_reason, 'stop', JSON.stringify(whole));
        return chat ? whole.message.content : whole.response;
      }
      let text = '';
      for await (const part of await (chat ? ollama.chat({ ...request, stream }) : ollama.generate({ ...request, stream }))) {
        text += chat ? part.message.content : part.response;
        if (part.done) assert.equal(part.done_reason, 'stop', JSON.stringify(part));
      }
      return text;
    };
    for (const request of [{ messages }, ...generates]) {
      const alone = await answer({ model, ...request, options: { num_predict: 40, seed: 1 } }, false);
      assert.ok(alone.length > 0 && jsonObjectOf(alone) === null, `${JSON.stringify(request)} without format: ${alone}`);
      for (let seed = 0; seed < 5; seed++) {
        for (const stream of [false, true]) {
          const text = await answer({ model, ...request, format: 'json', options: { num_predict: 40, seed } }, stream);
          assert.ok(jsonObjectOf(text), `${JSON.stringify(request)}, seed ${seed}, stream ${stream}: ${text}`);
        }
      }
    }
  });

  test('generate: templated and raw, whole and streamed', async () => {
    const whole = await ollama.generate({ model: 'tiny', prompt: 'once upon a time', system: 'tell stories', stream: false, options: { num_predict: 6 } });
    assert.equal(whole.model, 'tiny');
    assert.equal(typeof whole.response, 'string');
    assertTotals(whole, 6);
    const raw = await ollama.generate({ model: 'tiny', prompt: 'once upon a time', raw: true, stream: false, options: { num_predict: 6 } });
    assertTotals(raw, 6);
    assert.ok(raw.prompt_eval_count < whole.prompt_eval_count, 'no chat template around a raw prompt');
    const parts = [];
    for await (const part of await ollama.generate({ model: 'tiny', prompt: 'hello', stream: true, think: false, options: { num_predict: 5 } })) parts.push(part);
    assertTotals(parts.at(-1), 5);
    assert.ok(parts.slice(0, -1).every((p) => p.done === false && typeof p.response === 'string'));
  });

  test('generate with a suffix fills in the middle: the prompt framed by the model\'s FIM tokens', async () => {
    const prompt = 'def add(a, b):\n';
    const suffix = '\n    return c';
    // What the engine must see: <|fim_prefix|>prompt<|fim_suffix|>suffix<|fim_middle|>
    // (the synthetic model's FIM tokens, from its GGUF), tokenized by the model itself.
    const framed = await zest.json('/v1/tokenize', { model: 'tiny', content: `<|fim_prefix|>${prompt}<|fim_suffix|>${suffix}<|fim_middle|>`, add_special: true });
    assert.equal(framed.status, 200);
    // The engine saw the framed prompt: what it evaluated (prompt_eval_count)
    // and what it found in its prompt cache (zest's stats of the request) add up to it.
    const sawFramed = async (evaluated, outputTokens) => {
      let last;
      await waitFor(async () => {
        last = (await zest.json('/api/v1/stats')).data;
        return last.endpoint === 'ollama_generate' && last.output_tokens === outputTokens;
      }, { what: 'the stats of the generate request' });
      assert.equal(last.input_tokens, framed.data.count, 'the framed prompt, no chat template');
      assert.equal(evaluated + last.cached_tokens, framed.data.count);
    };
    const whole = await ollama.generate({ model: 'tiny', prompt, suffix, stream: false, options: { num_predict: 6 } });
    assertTotals(whole, 6);
    await sawFramed(whole.prompt_eval_count, 6);
    const parts = [];
    for await (const part of await ollama.generate({ model: 'tiny', prompt, suffix, stream: true, options: { num_predict: 4 } })) parts.push(part);
    assertTotals(parts.at(-1), 4);
    await sawFramed(parts.at(-1).prompt_eval_count, 4);
  });

  test('chat and generate errors are Ollama\'s: 400 naming the field, 404 for a model', async () => {
    const rejects = (promise, status, pattern) => assert.rejects(promise, (e) => {
      assert.equal(e.status_code, status, e.error);
      assert.match(e.error, pattern);
      return true;
    });
    await rejects(ollama.chat({ model: 'nope', messages: [] }), 404, /model 'nope' not found/);
    await rejects(ollama.chat({ model: 'embed-tiny', messages: [{ role: 'user', content: 'x' }] }), 400, /embedding model/);
    await rejects(ollama.chat({ model: 'tiny', messages: [{ role: 'wizard', content: 'x' }] }), 400, /messages\[0\]\.role/);
    await rejects(ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'x' }], options: { temperature: 'hot' } }), 400, /options\.temperature/);
    await rejects(ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'x' }], format: 'yaml' }), 400, /format/);
    await rejects(ollama.generate({ model: 'tiny', prompt: 'x', suffix: 'y', images: ['aGk='] }), 400, /suffix/);
    await rejects(ollama.generate({ model: 'tiny', prompt: 'x', template: '{{ .Prompt }}' }), 400, /template/);
    await rejects(ollama.generate({ model: 'tiny', prompt: 'x', context: [1, 2, 3] }), 400, /context/);
    // An image for a model without a projector: refused before any engine
    // sees it, in Ollama's shape.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg==';
    await assert.rejects(ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'what is it', images: [png] }], stream: false }),
      (e) => e.status_code === 400 && /model 'tiny' has no vision/.test(e.error));
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.match(metrics, /^zest_requests_total\{api="ollama",endpoint="ollama_chat",model="tiny",status="200"\} \d+$/m);
    assert.match(metrics, /^zest_requests_total\{api="ollama",endpoint="ollama_generate",model="tiny",status="200"\} \d+$/m);
  });

  test('ps: nothing, then the loaded model with its memory, context and expiry', async () => {
    for (const model of ['embed-tiny', 'tiny', 'quote-brace']) await zest.json('/api/v1/unload', { model });  // loaded by the tests above
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

// Apps that hard-code Ollama's address reach zest on a second listener
// (server.ollama_listen), with the same keys.
describe('Ollama API on its own address (server.ollama_listen)', () => {
  let zest;
  let port;
  const key = 'ollama-listener-key-0123456789';
  before(async () => {
    port = await freePort();
    zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { ZEST_OLLAMA_LISTEN: `127.0.0.1:${port}`, ZEST_API_KEY: key } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('the official client on that address lists and chats; keys apply there too', async () => {
    const ollama = new Ollama({ host: `http://127.0.0.1:${port}`, headers: { Authorization: `Bearer ${key}` } });
    assert.ok((await ollama.list()).models.some((m) => m.name === 'tiny:latest'));
    const reply = await ollama.chat({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], stream: false, options: { num_predict: 3 } });
    assert.equal(reply.done, true);
    const root = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await root.text(), 'Ollama is running');
    const anonymous = await fetch(`http://127.0.0.1:${port}/api/tags`);
    assert.equal(anonymous.status, 401);
    // The HTTP layer's own errors in Ollama's shape on this listener.
    const missing = await fetch(`http://127.0.0.1:${port}/api/nothing`, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(missing.status, 404);
    assert.equal(typeof (await missing.json()).error, 'string');
  });
});
