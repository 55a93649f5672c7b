// Residency: keep_alive (Ollama's semantics), explicit load/unload, and the
// SSE heartbeats a streaming client gets while it waits.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { chatBody, makeHome, startZest, waitFor, zestBin } from '../lib/zest.mjs';

const run = promisify(execFile);
// `long` can stream for tens of seconds (a 128k context before it must stop).
const LONG = { preset: 'tiny', args: ['--context', '131072'] };

async function loaded(zest, model) {
  return (await zest.instances()).find((i) => i.model === model && i.state === 'ready');
}

// The keep-alive reaper's ticks, seen through a witness model: a request
// for `witness` with `keep_alive` is unloaded by the reaper once that has
// run out, and it says so in the log. Two rounds (the second with
// keep_alive 0): the tick that unloaded the first witness has then run to
// its end, so whatever else was past its keep-alive at that tick has been
// dealt with too. A test that must show something was NOT unloaded waits
// for this instead of sleeping.
async function reaperTicksPast(zest, witness, keepAlive) {
  const unloads = () => (zest.logs().match(new RegExp(`unloaded '${witness}': idle past its keep_alive`, 'g')) ?? []).length;
  for (const keep of [keepAlive, 0]) {
    const seen = unloads();
    const r = await zest.json('/v1/chat/completions', chatBody(witness, { keep_alive: keep }));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    await waitFor(() => unloads() > seen, { timeout: 15000, what: `the reaper to unload '${witness}'` });
  }
}

// A streamed chat whose raw text (SSE comments included) is collected as it
// arrives; `done` resolves with the whole text when the stream ends.
function rawStream(zest, body, headers = {}) {
  const controller = new AbortController();
  const state = { text: '', status: 0 };
  state.done = (async () => {
    const res = await zest.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...body, stream: true }),
      signal: controller.signal,
    });
    state.status = res.status;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) state.text += decoder.decode(chunk, { stream: true });
    } catch (err) {
      if (err.name !== 'AbortError') throw err;
    }
    return state.text;
  })();
  state.abort = () => controller.abort();
  return state;
}

describe('keep_alive', () => {
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({ tiny: 'tiny', other: 'tiny', long: LONG }),
      args: ['--keep-alive', '1h', '--ctx-size', '131072', '--parallel', '1'],
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('keep_alive 0 unloads right after the answer', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('tiny', { keep_alive: 0 }));
    assert.equal(r.status, 200);
    // The log line comes once the engine has exited.
    await waitFor(() => /unloaded 'tiny': idle past its keep_alive/.test(zest.logs()),
      { timeout: 10000, what: 'the unload logged' });
    assert.equal(await loaded(zest, 'tiny'), undefined);
  });

  test('a duration counts from the end of the answer; ps says when', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('tiny', { keep_alive: '5s' }));
    assert.equal(r.status, 200);
    // The answer reaches the client a moment before the request lets go of
    // the model; only then does its keep-alive start counting.
    let idle;
    await waitFor(async () => (idle = await loaded(zest, 'tiny'))?.expires_in_s != null,
      { timeout: 4000, what: 'the keep-alive to start (ps says when it expires)' });
    const seenAt = Date.now();
    assert.ok(idle.expires_in_s > 0 && idle.expires_in_s <= 5, `expires_in_s ${idle.expires_in_s}`);
    // It counts down while the model stays loaded...
    await waitFor(async () => (await loaded(zest, 'tiny'))?.expires_in_s < idle.expires_in_s - 1,
      { timeout: 4000, what: 'the keep-alive to count down, the model still loaded' });
    // ...and the model goes once it has run out, not before.
    await waitFor(async () => !(await loaded(zest, 'tiny')), { timeout: 15000, what: 'tiny unloaded' });
    const after = (Date.now() - seenAt) / 1000;
    assert.ok(after >= idle.expires_in_s - 0.5, `unloaded ${after.toFixed(1)} s after ps said ${idle.expires_in_s.toFixed(1)} s`);
  });

  test('the server default applies without keep_alive; other models are untouched', async () => {
    await zest.json('/v1/chat/completions', chatBody('other', { keep_alive: 0 }));
    await zest.json('/v1/chat/completions', chatBody('tiny'));
    await waitFor(async () => !(await loaded(zest, 'other')), { timeout: 10000, what: 'other unloaded' });
    const tiny = await loaded(zest, 'tiny');
    assert.ok(tiny, 'tiny keeps the 1h default');
    assert.ok(tiny.expires_in_s > 3500, `expires_in_s ${tiny.expires_in_s}`);
  });

  test('a model is never unloaded while it streams', async () => {
    // keep_alive 0 on a stream that outlives several reaper ticks.
    const s = rawStream(zest, chatBody('long', { keep_alive: 0, max_tokens: 120000 }));
    await waitFor(() => (s.text.match(/^data: /gm) ?? []).length > 5, { timeout: 30000, what: 'tokens' });
    const pid = (await loaded(zest, 'long')).pid;
    // Its keep_alive 0 ran out at once, were it counted while it streams:
    // reaper ticks after that have seen it.
    await reaperTicksPast(zest, 'tiny', 0);
    const during = await loaded(zest, 'long');
    assert.equal(during?.pid, pid, `the same engine still serves; zest said:\n${zest.logs().slice(-3000)}`);
    assert.equal(during.expires_in_s, null, 'busy: no expiry');
    assert.doesNotMatch(s.text, /\[DONE\]/, 'still streaming');
    s.abort();
    await s.done;
    await waitFor(async () => !(await loaded(zest, 'long')), { timeout: 10000, what: 'unloaded after' });
  });

  test('a bad keep_alive is a 400 naming the field', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('tiny', { keep_alive: 'ten minutes' }));
    assert.equal(r.status, 400);
    assert.equal(r.data.error.param, 'keep_alive');
    assert.match(r.data.error.message, /not a duration/);
    const t = await zest.json('/v1/chat/completions', chatBody('tiny', { keep_alive: [1] }));
    assert.equal(t.status, 400);
  });
});

describe('load and unload', () => {
  let zest;
  let env;
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny', witness: 'tiny' }), args: ['--keep-alive', '1s'] });
    env = { ...process.env, ZEST_HOST: zest.url, ZEST_HOME: zest.home };
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('POST /api/v1/load starts the engine and keeps it as asked', async () => {
    const started = Date.now();
    const r = await zest.json('/api/v1/load', { model: 'tiny', keep_alive: -1 });
    const took = Date.now() - started;
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.equal(r.data.status, 'loaded');
    assert.equal(r.data.keep_alive, 'forever');
    // The engine's start, as zest timed it: something (a process started
    // and answered), and within what the request took.
    assert.ok(r.data.load_ms > 0 && r.data.load_ms <= took, `load_ms ${r.data.load_ms}, the request ${took} ms`);
    const inst = await loaded(zest, 'tiny');
    assert.equal(inst?.pid, r.data.pid);
    assert.equal(inst.expires_in_s, null);
    // Past the server's 1 s default: a witness loaded after it with that
    // default is unloaded by the reaper, and tiny must still be there.
    await reaperTicksPast(zest, 'witness', '1s');
    assert.equal((await loaded(zest, 'tiny'))?.pid, r.data.pid, 'kept forever');
    // A request without keep_alive brings the default back.
    await zest.json('/v1/chat/completions', chatBody('tiny'));
    await waitFor(async () => !(await loaded(zest, 'tiny')), { timeout: 10000, what: 'unloaded' });
  });

  test('load errors: unknown model 404, bad body 400', async () => {
    let r = await zest.json('/api/v1/load', { model: 'nope' });
    assert.equal(r.status, 404);
    assert.equal(r.data.error.code, 'model_not_found');
    r = await zest.json('/api/v1/load', { model: 'tiny', keep_alive: 'soon' });
    assert.equal(r.status, 400);
    assert.equal(r.data.error.param, 'keep_alive');
    r = await zest.json('/api/v1/load', '[]');
    assert.equal(r.status, 400);
  });

  test('zest load and zest unload', async () => {
    const { stdout } = await run(zestBin, ['load', 'tiny', '--keep-alive', '10m'], { env });
    assert.match(stdout, /loaded tiny in [\d.]+ s \(pid \d+, keep-alive 10m0s\)/);
    const inst = await loaded(zest, 'tiny');
    assert.ok(inst.expires_in_s > 590, `expires_in_s ${inst.expires_in_s}`);
    assert.match((await run(zestBin, ['unload', 'tiny'], { env })).stdout, /unloaded tiny/);
    assert.equal(await loaded(zest, 'tiny'), undefined);
    await assert.rejects(run(zestBin, ['load', 'nope'], { env }), /not found/);
  });
});

describe('heartbeats while a stream waits', () => {
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({ long: LONG }),
      args: ['--parallel', '1', '--ctx-size', '131072'],
      env: { ZEST_HEARTBEAT: '1' },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a queued stream gets 200 and SSE comments, then its answer', async () => {
    const first = rawStream(zest, chatBody('long', { max_tokens: 120000 }));
    await waitFor(() => first.text.includes('data: '), { timeout: 30000, what: 'the first stream' });
    const second = rawStream(zest, chatBody('long', { max_tokens: 4 }));
    await waitFor(() => (second.text.match(/^: queued 'long' \(\d+ s\)$/gm) ?? []).length >= 2,
      { timeout: 5000, what: 'two heartbeats' });
    assert.equal(second.status, 200);
    assert.doesNotMatch(second.text, /^data: /m, 'no answer while queued');
    first.abort();
    const text = await second.done;
    const data = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    assert.equal(data.at(-1), '[DONE]');
    // Its answer: the 4 tokens it asked for (their text may be held back by
    // the engine as incomplete UTF-8: the synthetic model's bytes are random).
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'length', data.join('\n'));
    assert.equal(chunks.at(-1).timings.predicted_n, 4);
  });

  test('a wait that ends in an error after heartbeats is an SSE error event', async () => {
    const first = rawStream(zest, chatBody('long', { max_tokens: 120000 }));
    await waitFor(() => first.text.includes('data: '), { timeout: 30000, what: 'the first stream' });
    const second = rawStream(zest, chatBody('long'), { 'X-Queue-Timeout': '2.5' });
    const text = await second.done;
    assert.doesNotMatch(first.text, /\[DONE\]/, 'the first still streams');
    first.abort();
    await first.done;
    assert.equal(second.status, 200);
    assert.match(text, /^: queued 'long'/m);
    const error = JSON.parse(text.split('\n').find((l) => l.startsWith('data: ')).slice(6));
    assert.equal(error.error.code, 'queue_timeout');
  });

  test('a wait shorter than one heartbeat keeps its HTTP status', async () => {
    // The slot is taken; the second stream's deadline (0.3 s) comes before
    // the first heartbeat (1 s), so it gets a real 503, not a 200 stream.
    const first = rawStream(zest, chatBody('long', { max_tokens: 120000 }));
    await waitFor(() => first.text.includes('data: '), { timeout: 30000, what: 'the first stream' });
    const r = await zest.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Queue-Timeout': '0.3' },
      body: JSON.stringify(chatBody('long', { stream: true })),
    });
    assert.equal(r.status, 503);
    assert.equal((await r.json()).error.code, 'queue_timeout');
    first.abort();
    await first.done;
  });
});

describe('conversations survive an unload (slot save/restore)', () => {
  // A long prompt: processing it again would show in the engine's timings.
  const prompt = Array.from({ length: 1500 }, (_, i) => `word${i % 50}`).join(' ');
  const ask = (zest) => zest.json('/v1/chat/completions', chatBody('ctx', {
    messages: [{ role: 'user', content: prompt }], max_tokens: 4, keep_alive: 0,
  }));
  const home = () => makeHome({ ctx: { preset: 'tiny', args: ['--context', '8192'] } });

  async function askTwiceAcrossAnUnload(zest) {
    const first = await ask(zest);
    assert.equal(first.status, 200, JSON.stringify(first.data));
    // Stopped, not only gone from ps: the slots are saved before the engine exits.
    await waitFor(() => /stopped 'ctx'/.test(zest.logs()), { timeout: 10000, what: 'the engine stopped' });
    const second = await ask(zest);
    assert.equal(second.status, 200, JSON.stringify(second.data));
    return [first.data.timings, second.data.timings];
  }

  test('the second request after a reload reuses the saved prompt', async () => {
    const zest = await startZest({ home: home(), args: ['--ctx-size', '8192', '--parallel', '1'] });
    try {
      const [first, second] = await askTwiceAcrossAnUnload(zest);
      assert.ok(first.prompt_n > 1000, `first prompt_n ${first.prompt_n}`);
      assert.ok(second.prompt_n < first.prompt_n / 10,
        `second prompt_n ${second.prompt_n} vs first ${first.prompt_n}`);
      assert.ok(second.cache_n > 1000, `cache_n ${second.cache_n}`);
      assert.match(zest.logs(), /saved 1 slot\(s\) of 'ctx'/);
      assert.match(zest.logs(), /restored 1 slot\(s\) of 'ctx'/);
      // Saved again at the second unload, private, and deleted with the model.
      const dir = path.join(zest.home, 'cache', 'slots', 'ctx');
      await waitFor(() => fs.existsSync(dir) && fs.readdirSync(dir).some((f) => /^slot-\d+\.bin$/.test(f)),
        { timeout: 10000, what: 'a slot file' });
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
      const del = await zest.json('/api/v1/models/ctx', undefined, { method: 'DELETE' });
      assert.equal(del.status, 200, JSON.stringify(del.data));
      assert.equal(fs.existsSync(dir), false);
    } finally { await zest.stop(); zest.cleanup(); }
  });

  test('with scheduler.save_slots=false the prompt is processed again', async () => {
    const zest = await startZest({
      home: home(), args: ['--ctx-size', '8192', '--parallel', '1'], env: { ZEST_SAVE_SLOTS: 'false' },
    });
    try {
      const [first, second] = await askTwiceAcrossAnUnload(zest);
      assert.ok(second.prompt_n > first.prompt_n * 0.9, `second prompt_n ${second.prompt_n}`);
      assert.doesNotMatch(zest.logs(), /saved \d+ slot/);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});
