// Request ids, JSON logs, /api/v1/stats, /api/v1/logs, `zest logs` and
// `zest top` against the real zest and llama-server.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import {
  chatBody, descendants, makeHome, openStream, sseData, startZest, streamsUntilStopped, waitFor, zestBin,
} from '../lib/zest.mjs';

const run = promisify(execFile);

// An SSE response's events, parsed.
async function* sseEvents(res) {
  for await (const data of sseData(res)) yield JSON.parse(data);
}

describe('request ids and logs', () => {
  let zest;
  let env;
  before(async () => {
    // The stream an engine dies under must not end first: it shifts its context.
    zest = await startZest({ home: makeHome({ tiny: 'tiny' }, { config: streamsUntilStopped('tiny') }) });
    env = { ...process.env, ZEST_HOST: zest.url, ZEST_HOME: zest.home };
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('X-Request-Id is kept when safe, replaced when not, and on every response', async () => {
    let r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }), { headers: { 'X-Request-Id': 'client-id.42' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-request-id'), 'client-id.42');
    for (const bad of ['has space', 'x'.repeat(65), 'semi;colon']) {
      r = await zest.json('/v1/models', undefined, { headers: { 'X-Request-Id': bad } });
      assert.match(r.headers.get('x-request-id'), /^[0-9a-f]{16}$/, bad);
    }
    r = await zest.json('/no/such/route');
    assert.equal(r.status, 404);
    assert.match(r.headers.get('x-request-id'), /^[0-9a-f]{16}$/);
    const s = await zest.stream('/v1/chat/completions', chatBody('tiny', { max_tokens: 3 }));
    assert.match(s.headers.get('x-request-id'), /^[0-9a-f]{16}$/);
    const ids = new Set();
    for (let i = 0; i < 20; i++) ids.add((await zest.fetch('/health')).headers.get('x-request-id'));
    assert.equal(ids.size, 20);
    await waitFor(() => zest.logs().includes('[req:client-id.42] POST /v1/chat/completions 200'),
      { what: 'the access log line' });
  });

  test('log lines about a request carry its id (an engine dying mid-stream)', async () => {
    const id = 'dying-stream-1';
    // A text completion: a chat stream would go on on a fresh engine.
    const res = await zest.fetch('/v1/completions', {
      method: 'POST', headers: { 'content-type': 'application/json', 'X-Request-Id': id },
      body: JSON.stringify({ model: 'tiny', prompt: 'Once', max_tokens: 100000, ignore_eos: true, stream: true }),
    });
    assert.equal(res.headers.get('x-request-id'), id);
    const reader = res.body.getReader();
    await reader.read();
    for (const p of descendants(zest.pid).filter((d) => d.comm === 'llama-server')) process.kill(p.pid, 'SIGKILL');
    while (!(await reader.read()).done) { /* until the error event and the end */ }
    await waitFor(() => zest.logs().includes(`[req:${id}] POST /v1/completions 200`), { what: 'access line' });
    const lines = zest.logs().split('\n').filter((l) => l.includes('broke off a stream'));
    assert.equal(lines.length, 1, zest.logs());
    assert.match(lines[0], new RegExp(`\\[req:${id}\\] engine for 'tiny' broke off a stream`));
  });

  test('GET /api/v1/stats reports the last request as the client saw it', async () => {
    const s = await zest.stream('/v1/chat/completions',
      chatBody('tiny', { max_tokens: 7, stream_options: { include_usage: true } }));
    const usage = s.events.slice(0, -1).map((e) => JSON.parse(e)).find((c) => c.usage).usage;
    // The server records a request just after its last byte went out.
    let status;
    let data;
    await waitFor(async () => {
      ({ status, data } = await zest.json('/api/v1/stats'));
      return data.output_tokens === 7;
    }, { what: 'the stats of the streamed request' });
    assert.equal(status, 200);
    assert.equal(data.model, 'tiny');
    assert.equal(data.stream, true);
    assert.equal(data.input_tokens, usage.prompt_tokens);
    assert.equal(data.output_tokens, usage.completion_tokens);
    assert.equal(data.output_tokens, 7);
    assert.equal(data.cached_tokens, usage.prompt_tokens_details?.cached_tokens ?? 0);
    assert.ok(data.time_to_first_token > 0 && data.time_to_first_token < data.duration_seconds, JSON.stringify(data));
    assert.ok(data.tokens_per_second > 0);
    const q = data.queues.find((x) => x.model === 'tiny');
    assert.deepEqual(q.waiting, { high: 0, normal: 0, low: 0 });
    assert.equal(q.slots, 5);  // --parallel 4 + 1 reserved for high priority

    // Non-streamed: zest assembled the answer from a stream, and timed it
    // the same way; with logprobs the request went as it was, untimed.
    const lastWith = async (tokens) => {
      await waitFor(async () => ({ data } = await zest.json('/api/v1/stats')).data.output_tokens === tokens,
        { what: `the stats of the ${tokens}-token request` });
      return data;
    };
    const whole = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 12 }));
    assert.equal(whole.status, 200);
    data = await lastWith(12);
    assert.equal(data.stream, false);
    // Timed from the first event with text; the synthetic model's random
    // bytes can (rarely) make none, and then there is nothing to time.
    if (whole.data.choices[0].message.content) {
      assert.ok(data.time_to_first_token > 0 && data.time_to_first_token < data.duration_seconds, JSON.stringify(data));
    } else {
      assert.equal(data.time_to_first_token, null, JSON.stringify(data));
    }
    assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2, logprobs: true }))).status, 200);
    data = await lastWith(2);
    assert.equal(data.time_to_first_token ?? null, null, JSON.stringify(data));
  });

  test('GET /api/v1/logs: zest\'s lines, an engine\'s lines, and following', async () => {
    await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }), { headers: { 'X-Request-Id': 'for-the-ring' } });
    let r;
    await waitFor(async () => {
      r = await zest.json('/api/v1/logs?n=1000');
      return r.data.lines.some((l) => l.includes('[req:for-the-ring] POST /v1/chat/completions 200'));
    }, { what: 'the access line in the ring' });
    assert.equal(r.status, 200);
    assert.equal((await zest.json('/api/v1/logs?n=2')).data.lines.length, 2);
    r = await zest.json('/api/v1/logs?model=tiny&n=500');
    assert.equal(r.status, 200);
    assert.ok(r.data.lines.some((l) => /llama|server|model/i.test(l)), r.data.lines.join('\n'));
    r = await zest.json('/api/v1/logs?model=nope');
    assert.equal(r.status, 404);
    assert.equal(r.data.error.param, 'model');
    assert.equal((await zest.json('/api/v1/logs?n=lots')).status, 400);

    const ctl = new AbortController();
    const res = await zest.fetch('/api/v1/logs?n=0&follow=1', { signal: ctl.signal });
    assert.match(res.headers.get('content-type'), /text\/event-stream/);
    const events = sseEvents(res);
    await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }), { headers: { 'X-Request-Id': 'followed-1' } });
    for await (const e of events) {
      if (e.line.includes('[req:followed-1] POST /v1/chat/completions 200')) break;
    }
    ctl.abort();
  });

  test('zest logs prints zest\'s and an engine\'s lines; -f follows', async () => {
    await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }), { headers: { 'X-Request-Id': 'cli-logs-1' } });
    await waitFor(() => zest.logs().includes('[req:cli-logs-1]'), { what: 'the access line' });
    let { stdout } = await run(zestBin, ['logs', '-n', '1000'], { env });
    assert.match(stdout, /\[req:cli-logs-1\] POST \/v1\/chat\/completions 200/);
    ({ stdout } = await run(zestBin, ['logs', 'tiny', '-n', '3'], { env }));
    assert.equal(stdout.trimEnd().split('\n').length, 3);
    await assert.rejects(run(zestBin, ['logs', 'nope'], { env }), /not found|nope/);

    // One line of history: once it is printed the stream is open, and every
    // later line will follow.
    const child = spawn(zestBin, ['logs', '-f', '-n', '1'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    await waitFor(() => out.includes('\n'), { what: 'the follower to print its line of history' });
    await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }), { headers: { 'X-Request-Id': 'cli-follow-1' } });
    await waitFor(() => out.includes('[req:cli-follow-1]'), { what: 'the followed line' });
    const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
    child.kill('SIGINT');
    assert.deepEqual(await exited, { code: 0, signal: null });
  });
});

describe('JSON logs', () => {
  test('--log-format json writes one JSON object per line, with request ids', async () => {
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), args: ['--log-format', 'json'] });
    try {
      await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }), { headers: { 'X-Request-Id': 'json-1' } });
      await waitFor(() => zest.logs().includes('json-1'), { what: 'the request line' });
      const lines = zest.logs().split('\n').filter((l) => l.length > 0);
      const records = lines.map((l) => JSON.parse(l));  // throws on any non-JSON line
      for (const r of records) {
        assert.match(r.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(['trace', 'debug', 'info', 'warning', 'error', 'critical'].includes(r.level), r.level);
        assert.equal(typeof r.msg, 'string');
      }
      const mine = records.find((r) => r.request_id === 'json-1');
      assert.equal(mine.msg.split(' ').slice(0, 3).join(' '), 'POST /v1/chat/completions 200');
      const ring = (await zest.json('/api/v1/logs?n=1000')).data.lines;
      assert.ok(ring.some((l) => JSON.parse(l).request_id === 'json-1'));
    } finally {
      await zest.stop();
      zest.cleanup();
    }
  });
});

describe('zest top', () => {
  let zest;
  let env;
  let answered;  // the text of the one request made, so its TTFT is known to exist
  before(async () => {
    zest = await startZest({ home: makeHome({ tiny: 'tiny' }) });
    env = { ...process.env, ZEST_HOST: zest.url, ZEST_HOME: zest.home, TERM: 'xterm' };
    answered = (await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 5 }))).data.choices[0].message.content;
  });
  const children = [];
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');  // a failed test's
    await zest.stop();
    zest.cleanup();
  });

  // zest top in a real 80x24 pty (util-linux script); `exec` so Ctrl-C
  // reaches zest, not a shell.
  function startTop() {
    const cmd = `stty cols 80 rows 24; exec ${zestBin} top`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    const state = { out: '', child };
    child.stdout.on('data', (d) => { state.out += d; });
    state.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    return state;
  }
  const frames = (out) => out.split('\x1b[H').slice(1);
  const visible = (frame) => frame.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '').split('\r\n');

  test('refreshes every second, fits 80x24, quits on q and restores the terminal', async () => {
    const top = startTop();
    await waitFor(() => frames(top.out).length >= 3, { timeout: 8000, what: 'three frames' });
    const lines = visible(frames(top.out)[2]);
    assert.ok(lines.length <= 25, `${lines.length} lines`);
    for (const l of lines) assert.ok(l.length <= 80, `too wide: ${l}`);
    const text = lines.join('\n');
    assert.match(text, /cpu\s+.*\[[#.]{10}\]/);
    assert.match(text, /tiny\s+ready\s+\d+\s+\S+\s+0\/5\s+0\/0\/0/);
    assert.match(text, /THROUGHPUT [\d.]+ tok\/s generated, 1 requests served/);
    // A non-streamed request: zest assembled it from a stream, so it has a
    // TTFT, unless the synthetic model's random bytes made no text at all.
    const ttft = answered ? '[\\d.]+ s' : '-';
    assert.match(text, new RegExp(`LAST\\s+tiny: TTFT ${ttft}, [\\d.]+ tok/s, \\d+ in \\(\\d+ cached\\) / 5 out`));
    top.child.stdin.write('q');
    assert.equal(await top.exited, 0);
    assert.ok(top.out.includes('\x1b[?1049l'), 'the alternate screen is left');
    assert.ok(top.out.lastIndexOf('\x1b[?25h') > top.out.lastIndexOf('\x1b[?25l'), 'the cursor is shown again');
  });

  test('Ctrl-C quits cleanly too', async () => {
    const top = startTop();
    await waitFor(() => frames(top.out).length >= 1, { timeout: 8000, what: 'a frame' });
    top.child.stdin.write('\x03');
    assert.equal(await top.exited, 0);
    assert.ok(top.out.includes('\x1b[?1049l'));
  });
});
