// GET /metrics reflects exactly the workload the test ran.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chatBody, makeHome, startZest } from '../lib/zest.mjs';

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
    for (let i = 0; i < 3; i++) {
      const r = await zest.json('/v1/chat/completions', chatBody('tiny', { max_tokens: 4 + i }));
      assert.equal(r.status, 200);
      completion += r.data.usage.completion_tokens;
      prompt += r.data.usage.prompt_tokens;
    }
    for (let i = 0; i < 2; i++) {
      const s = await zest.stream('/v1/chat/completions',
        chatBody('tiny', { max_tokens: 6, stream_options: { include_usage: true } }));
      const chunks = s.events.slice(0, -1).map((e) => JSON.parse(e));
      const usage = chunks.find((c) => c.usage).usage;
      const withText = chunks.filter((c) => c.choices?.[0]?.delta?.content).length;
      gaps += Math.max(0, withText - 1);
      completion += usage.completion_tokens;
      prompt += usage.prompt_tokens;
    }
    assert.equal((await zest.json('/v1/chat/completions', chatBody('missing'))).status, 404);

    const res = await zest.fetch('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const m = parseMetrics(await res.text());
    assert.equal(m.get('zest_requests_total{endpoint="chat_completions",model="tiny",status="200"}'), 5);
    assert.equal(m.get('zest_requests_total{endpoint="chat_completions",model="",status="404"}'), 1);
    assert.equal(m.get('zest_time_to_first_token_seconds_count{model="tiny"}'), 2);
    assert.equal(m.get('zest_request_duration_seconds_count{endpoint="chat_completions",model="tiny"}'), 5);
    assert.equal(m.get('zest_completion_tokens_total{model="tiny"}'), completion);
    assert.equal(m.get('zest_prompt_tokens_total{model="tiny"}'), prompt);
    assert.equal(m.get('zest_inter_token_latency_seconds_count{model="tiny"}'), gaps);
    assert.equal(m.get('zest_models_loaded'), 1);
    assert.equal(m.get('zest_requests_running{model="tiny"}'), 0);
  });
});
