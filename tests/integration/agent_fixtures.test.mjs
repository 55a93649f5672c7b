// Request shapes of real agents as their public docs and issue threads
// describe them (tests/fixtures/agents/*.json: written by hand from those
// sources, each citing them; not captured from the clients themselves, so
// they show what the sources say, not what today's client sends), sent
// byte for byte to the real zest and llama-server,
// with the agents' own model names reaching a local model through
// [aliases]. What an agent needs back: 200, its event stream in its API's
// order, the model name it asked for, real usage.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest } from '../lib/zest.mjs';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/agents');
const load = (name) => JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8'));

// The events of an SSE body, as [name, data] pairs.
function events(text) {
  return text.split('\n\n').filter((b) => b.includes('data: ')).map((block) => {
    const name = /^event: (.*)$/m.exec(block)?.[1] ?? '';
    return [name, JSON.parse(/^data: (.*)$/m.exec(block)[1])];
  });
}

describe('agent request shapes written from public sources', () => {
  let zest;
  before(async () => {
    const home = makeHome({ tiny: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'), '[aliases]\n"claude-*" = "tiny"\n"gpt-5*" = "tiny"\n', { mode: 0o644 });
    zest = await startZest({ home });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  async function replay(fixture) {
    assert.ok(fixture.sources.length > 0 && fixture.about.length > 0, 'a fixture says where its shape comes from');
    const res = await fetch(`${zest.url}${fixture.path}`, { method: fixture.method, headers: fixture.headers, body: JSON.stringify(fixture.body) });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    return events(text);
  }

  test('a Claude Code turn: thinking, cache_control, tool_result, betas', async () => {
    const fixture = load('claude_code_turn.json');
    const stream = await replay(fixture);
    const names = stream.map(([name]) => name);
    assert.equal(names[0], 'message_start');
    assert.equal(names.at(-1), 'message_stop');
    assert.ok(!names.includes('error'), names.join(' '));
    const start = stream[0][1].message;
    assert.equal(start.model, fixture.body.model, 'the model name Claude Code asked for');
    const delta = stream.find(([name]) => name === 'message_delta')[1];
    assert.ok(['end_turn', 'max_tokens', 'tool_use'].includes(delta.delta.stop_reason));
    assert.ok(delta.usage.input_tokens > 100, `the system, tools and turns reach the model: ${JSON.stringify(delta.usage)}`);
    assert.ok(delta.usage.output_tokens > 0);
  });

  test('a Codex turn: store false, the conversation replayed with reasoning and a function call', async () => {
    const fixture = load('codex_turn.json');
    // A short answer is enough to check the shape.
    fixture.body.max_output_tokens = 16;
    const stream = await replay(fixture);
    const types = stream.map(([, data]) => data.type);
    assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
    assert.ok(['response.completed', 'response.incomplete'].includes(types.at(-1)), types.join(' '));
    assert.ok(!types.includes('error'));
    const response = stream.at(-1)[1].response;
    assert.equal(response.model, fixture.body.model);
    assert.equal(response.store, false);
    assert.ok(response.usage.input_tokens > 100, JSON.stringify(response.usage));
    assert.equal(fs.existsSync(path.join(zest.home, 'responses')), false, 'store:false keeps nothing');
  });
});
