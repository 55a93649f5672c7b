// Admission: one slot per model here, a bounded queue with priorities,
// deadlines and disconnects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chatBody, engineGet, makeHome, openStream, startZest, waitFor, waitForQueued } from '../lib/zest.mjs';

const long = (extra = {}) => chatBody('long', { max_tokens: 30000, ignore_eos: true, ...extra });

describe('admission queue', () => {
  let zest;
  // Sends a request in the background; resolves to {status, data, headers, at}.
  const send = (body, headers = {}, signal) => zest.fetch('/v1/chat/completions', {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body), signal,
  }).then(async (res) => ({ status: res.status, headers: res.headers, data: await res.json().catch(() => null), at: performance.now() }));
  const queueDepth = async () => {
    const text = await (await zest.fetch('/metrics')).text();
    return [...text.matchAll(/^zest_queue_depth\{model="long",priority="\w+"\} (\d+)$/gm)]
      .reduce((a, m) => a + Number(m[1]), 0);
  };

  before(async () => {
    zest = await startZest({
      home: makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } }),
      args: ['--ctx-size', '32768', '--parallel', '1', '--max-queue', '2'],
    });
    assert.equal((await zest.json('/v1/chat/completions', chatBody('long'))).status, 200);  // load
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a full queue answers 429 queue_full with Retry-After', async () => {
    const holder = await openStream(zest, long());
    const ctl = new AbortController();
    const queued = [send(chatBody('long'), {}, ctl.signal), send(chatBody('long'), {}, ctl.signal)];
    await waitFor(async () => (await queueDepth()) === 2, { what: 'two queued' });
    const r = await send(chatBody('long'));
    assert.equal(r.status, 429);
    assert.equal(r.data.error.code, 'queue_full');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    holder.abort();
    const done = await Promise.all(queued);  // the slot frees, both get served
    for (const d of done) assert.equal(d.status, 200);
  });

  test('a request that waits past its deadline gets 503 queue_timeout', async () => {
    const holder = await openStream(zest, long());
    const t0 = performance.now();
    const r = await send(chatBody('long'), { 'X-Queue-Timeout': '0.4' });
    assert.equal(r.status, 503);
    assert.equal(r.data.error.code, 'queue_timeout');
    assert.ok(performance.now() - t0 >= 350);
    holder.abort();
  });

  test('a client that disconnects while queued frees its place', async () => {
    const holder = await openStream(zest, long());
    const ctl = new AbortController();
    const gone = [send(chatBody('long'), {}, ctl.signal).catch(() => null), send(chatBody('long'), {}, ctl.signal).catch(() => null)];
    await waitFor(async () => (await queueDepth()) === 2, { what: 'two queued' });
    ctl.abort();
    await Promise.all(gone);
    await waitFor(async () => (await queueDepth()) === 0, { what: 'places freed' });
    const r = await send(chatBody('long'), { 'X-Queue-Timeout': '0.3' });
    assert.equal(r.status, 503, 'queued (then timed out), not rejected as full');
    holder.abort();
  });

  test('high priority overtakes low in the queue', async () => {
    const holder = await openStream(zest, long());
    const reservedHolder = await openStream(zest, long({ priority: 'high' }));  // the reserved slot
    const low = send(chatBody('long', { max_tokens: 4 }), { 'X-Priority': 'low' });
    await waitFor(async () => (await queueDepth()) === 1, { what: 'low queued' });
    const high = send(chatBody('long', { max_tokens: 4, priority: 'high' }));
    await waitFor(async () => (await queueDepth()) === 2, { what: 'high queued' });
    holder.abort();
    const h = await high;
    assert.equal(h.status, 200);
    reservedHolder.abort();
    const l = await low;
    assert.equal(l.status, 200);
    assert.ok(h.at < l.at, 'high finished first');
  });

  test('a high-priority request starts at once while low work fills the shared slot', async () => {
    // --parallel 1 and the default scheduler.reserved_slots = 1: the engine has two slots.
    const instance = (await zest.instances()).find((i) => i.model === 'long');
    assert.ok(instance, 'loaded');
    const holder = await openStream(zest, long({ priority: 'low' }));
    const normal = send(chatBody('long', { max_tokens: 4 }));
    await waitFor(async () => (await queueDepth()) === 1, { what: 'normal queued (no reserved slot for it)' });
    const h = await send(chatBody('long', { max_tokens: 4 }), { 'X-Priority': 'high' });
    assert.equal(h.status, 200);
    // Served beside the low stream, which still runs, not after it.
    const slots = (await engineGet(instance.socket, '/slots')).data;
    assert.equal(slots.length, 2);
    assert.equal(slots.filter((slot) => slot.is_processing).length, 1, 'the low stream still generates');
    assert.equal(await queueDepth(), 1, 'the normal request still waits');
    holder.abort();
    assert.equal((await normal).status, 200);
  });

  test('an unknown priority is a 400', async () => {
    const r = await send(chatBody('long'), { 'X-Priority': 'urgent' });
    assert.equal(r.status, 400);
    assert.equal(r.data.error.param, 'priority');
  });
});

// n answers run as n sequences in the engine, so they take n slots in the
// queue: two shared slots and the reserved one (--parallel 2, the default
// scheduler.reserved_slots = 1), and server.max_choices = 2.
describe('several answers at once', () => {
  let zest;
  const send = (body, headers = {}, signal) => zest.fetch('/v1/chat/completions', {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body), signal,
  }).then(async (res) => ({ status: res.status, data: await res.json().catch(() => null) }));
  const busy = async () => (await zest.json('/api/v1/stats')).data.queues?.find((q) => q.model === 'long')?.busy ?? 0;

  before(async () => {
    zest = await startZest({
      home: makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } }),
      args: ['--ctx-size', '32768', '--parallel', '2'],
      env: { ZEST_MAX_CHOICES: '2', ZEST_MAX_PROMPTS: '2' },
    });
    assert.equal((await send(chatBody('long'))).status, 200);  // load
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('more answers than server.max_choices is a 400 naming the field', async () => {
    for (const [field, value] of [['n', 3], ['n_cmpl', 3], ['n', 0], ['n', 'two']]) {
      const r = await send(chatBody('long', { [field]: value }));
      assert.equal(r.status, 400, `${field}: ${JSON.stringify(value)}`);
      assert.equal(r.data.error.param, field);
      assert.match(r.data.error.message, /server\.max_choices/);
    }
  });

  test('a list of more prompts than server.max_prompts is a 400 naming the field', async () => {
    const complete = (prompt) => zest.json('/v1/completions', { model: 'long', prompt, max_tokens: 2 });
    const refused = await complete(['a', 'b', 'c']);
    assert.equal(refused.status, 400, JSON.stringify(refused.data));
    assert.equal(refused.data.error.param, 'prompt');
    assert.match(refused.data.error.message, /server\.max_prompts/);
    assert.equal((await complete(['a', 'b'])).status, 200);
  });

  test('two answers take both shared slots: a plain request waits, a high one starts at once', async () => {
    const ctl = new AbortController();
    const pair = send(chatBody('long', { n: 2, max_tokens: 30000, ignore_eos: true }), {}, ctl.signal).catch(() => null);
    await waitFor(async () => (await busy()) === 2, { what: 'the pair holding two slots' });
    const plain = send(chatBody('long', { max_tokens: 4 }));
    await waitForQueued(zest, 'long');
    const high = await send(chatBody('long', { max_tokens: 4 }), { 'X-Priority': 'high' });
    assert.equal(high.status, 200, 'the reserved slot is still free for high priority');
    const { data } = await zest.json('/api/v1/stats');
    assert.equal(data.queues.find((q) => q.model === 'long').waiting.normal, 1, 'the plain request still waits');
    ctl.abort();  // the pair goes: its two slots come back
    await pair;
    assert.equal((await plain).status, 200);
  });
});
