// GET /metrics reflects exactly the workload the test ran.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chatBody, descendants, makeHome, openStream, startZest, streamsUntilStopped, waitFor } from '../lib/zest.mjs';
import { promtool, startPrometheus } from '../lib/prometheus.mjs';

// Parses the Prometheus text format into {name{labels}: value}.
function parseMetrics(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('metrics', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({ tiny: 'tiny' }) }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('request counts, TTFT samples and token counters match the workload', async () => {
    let completion = 0;
    let prompt = 0;
    let gaps = 0;  // between streamed events that carry text, as zest measures them
    let unseenGaps = 0;  // at most, in the streams zest assembles non-streamed answers from
    // Time to first token: every request whose answer has text (the
    // synthetic model's random bytes can, rarely, make none).
    let timed = 0;
    for (let i = 0; i < 3; i++) {
      const r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 4 + i }));
      assert.equal(r.status, 200);
      if (r.data.choices[0].message.content) timed += 1;
      completion += r.data.usage.completion_tokens;
      unseenGaps += r.data.usage.completion_tokens - 1;
      prompt += r.data.usage.prompt_tokens;
    }
    for (let i = 0; i < 2; i++) {
      const s = await zest.stream('/v1/chat/completions',
        chatBody('tiny', { max_tokens: 6, stream_options: { include_usage: true } }));
      const chunks = s.events.slice(0, -1).map((e) => JSON.parse(e));
      const usage = chunks.find((c) => c.usage).usage;
      const withText = chunks.filter((c) => c.choices?.[0]?.delta?.content).length;
      gaps += Math.max(0, withText - 1);
      if (withText > 0) timed += 1;
      completion += usage.completion_tokens;
      prompt += usage.prompt_tokens;
    }
    assert.equal((await zest.json('/v1/chat/completions', chatBody('missing'))).status, 404);

    // A request is recorded just after its last byte went out: wait for the last one.
    let res;
    let m;
    await waitFor(async () => {
      res = await zest.fetch('/metrics');
      m = parseMetrics(await res.text());
      return m.get('zest_requests_total{api="openai",endpoint="chat_completions",model="",status="404"}') === 1;
    }, { what: 'the last request to be recorded' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    assert.equal(m.get('zest_requests_total{api="openai",endpoint="chat_completions",model="tiny",status="200"}'), 5);
    assert.equal(m.get('zest_requests_total{api="openai",endpoint="chat_completions",model="",status="404"}'), 1);
    // Streamed or not: zest streams from the engine for the non-streamed ones too.
    assert.ok(timed >= 4, `${timed} of 5 answers with text`);
    assert.equal(m.get('zest_time_to_first_token_seconds_count{model="tiny"}'), timed);
    assert.equal(m.get('zest_request_duration_seconds_count{api="openai",endpoint="chat_completions",model="tiny"}'), 5);
    assert.equal(m.get('zest_completion_tokens_total{model="tiny"}'), completion);
    assert.equal(m.get('zest_prompt_tokens_total{model="tiny"}'), prompt);
    const itl = m.get('zest_inter_token_latency_seconds_count{model="tiny"}');
    assert.ok(itl >= gaps && itl <= gaps + unseenGaps, `${itl} gaps, ${gaps} streamed + up to ${unseenGaps}`);
    assert.equal(m.get('zest_models_loaded'), 1);
    assert.equal(m.get('zest_requests_running{model="tiny"}'), 0);
    // Every admitted request waited in the queue (here: not at all) once.
    assert.equal(m.get('zest_queue_wait_seconds_count{model="tiny",priority="normal"}'), 5);
    assert.equal(m.get('zest_engine_starts_total{model="tiny",result="ready"}'), 1);
    assert.equal(m.get('zest_model_load_duration_seconds_count{model="tiny"}'), 1);
    assert.equal(m.get('zest_prompt_processing_seconds_count{model="tiny"}'), 5);
    assert.equal(m.get('zest_slots_capacity{model="tiny"}'), 5);  // --parallel 4 + 1 reserved for high priority
    assert.ok(m.get('zest_device_memory_total_bytes{device="cpu",kind="cpu"}') > 0);
    assert.equal(m.get('zest_download_bytes_total'), 0);
    // The engine's own counters, scraped over its socket and re-exported.
    assert.equal(m.get('zest_engine_tokens_predicted_total{model="tiny"}'), completion);
    assert.equal(m.get('zest_engine_requests_processing{model="tiny"}'), 0);
  });

  test('promtool check metrics accepts the exposition', async () => {
    const text = await (await zest.fetch('/metrics')).text();
    const r = await promtool(['check', 'metrics'], text);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test('a real Prometheus scrapes zest and PromQL returns the request count', async () => {
    let sent = 0;
    for (let i = 0; i < 4; i++) {
      assert.equal((await zest.json('/v1/completions', { model: 'tiny', prompt: 'hi', max_tokens: 2 })).status, 200);
      sent++;
    }
    const prom = await startPrometheus(new URL(zest.url).host);
    try {
      const expr = 'sum(zest_requests_total{api="openai",endpoint="completions",status="200"})';
      let value;
      await waitFor(async () => {
        const result = await prom.query(expr);
        value = result.length ? Number(result[0].value[1]) : undefined;
        return value === sent;
      }, { timeout: 20000, interval: 250, what: `${expr} == ${sent} (last ${value})` });
      const up = await prom.query('up{job="zest"}');
      assert.equal(up[0].value[1], '1');
    } finally {
      await prom.stop();
    }
  });
});

describe('metrics of rejections and engine crashes', () => {
  let zest;
  before(async () => {
    // The holder's stream must outlast the rejections: it shifts its context.
    zest = await startZest({ home: makeHome({ tiny: 'tiny' }, { config: streamsUntilStopped('tiny') }),
                             args: ['--parallel', '1', '--max-queue', '0'] });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('queue_full rejections, crashes and restarts are counted as they happened', async () => {
    const holder = await openStream(zest, chatBody('tiny', { max_tokens: 100000 }));
    let rejected = 0;
    for (let i = 0; i < 3; i++) {
      const r = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(r.status, 429);
      rejected++;
    }
    holder.abort();
    await waitFor(async () => /zest_slots_busy\{model="tiny"\} 0\n/.test(await (await zest.fetch('/metrics')).text()),
      { what: 'the slot to be released' });
    const engines = descendants(zest.pid).filter((p) => p.comm === 'llama-server');
    assert.equal(engines.length, 1);
    process.kill(engines[0].pid, 'SIGKILL');
    await waitFor(async () => {
      const r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }));
      return r.status === 200;
    }, { timeout: 60000, interval: 200, what: 'a request served by a new engine' });
    const m = parseMetrics(await (await zest.fetch('/metrics')).text());
    assert.equal(m.get('zest_rejections_total{model="tiny",reason="queue_full"}'), rejected);
    assert.equal(m.get('zest_requests_total{api="openai",endpoint="chat_completions",model="tiny",status="429"}'), rejected);
    assert.equal(m.get('zest_engine_crashes_total{model="tiny"}'), 1);
    assert.equal(m.get('zest_engine_restarts_total{model="tiny"}'), 1);
    assert.equal(m.get('zest_engine_starts_total{model="tiny",result="ready"}'), 2);
  });
});

// metrics.enabled = false: no /metrics route at all, and the server still
// starts and serves (it refused to start: an access rule named the route
// that was not there).
describe('metrics off', () => {
  let zest;
  before(async () => { zest = await startZest({ env: { ZEST_METRICS: 'false' } }); });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test('no /metrics, the rest served', async () => {
    assert.equal((await zest.fetch('/metrics')).status, 404);
    const r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 2 }));
    assert.equal(r.status, 200, JSON.stringify(r.data));
  });
});
