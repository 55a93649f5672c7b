// Claude Code (@anthropic-ai/claude-code, pinned in tests/agents/package.json),
// unchanged, headless (`claude -p`) in an empty HOME against zest's Messages
// API (ANTHROPIC_BASE_URL), through a recording proxy: one turn in which the
// model calls one of Claude Code's tools, Claude Code runs it and sends the
// result, and the model answers; no request refused, none sent twice (it
// sent each turn twice while zest refused its system messages).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/recording_proxy.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';
import { CODER, CODER_CONTEXT, emptyHome, listTree, modules, runClient, scratchProject } from './lib/agents.mjs';

const claude = path.join(modules, '@anthropic-ai/claude-code/bin/claude.exe');

describe('Claude Code', () => {
  let zest;
  let proxy;
  before(async () => {
    zest = await startZest({ home: makeHome({ coder: CODER }), args: ['--ctx-size', String(CODER_CONTEXT)] });
    proxy = await startRecordingProxy(zest.url);
  });
  after(async () => { await proxy?.close(); await zest?.stop(); zest?.cleanup(); });

  test('a turn with a tool round trip: nothing refused, nothing sent twice', async (t) => {
    const home = emptyHome();
    const work = scratchProject();
    // Every model name it may ask for is zest's model (side calls name
    // Claude models otherwise); the context window zest serves.
    const model = 'coder';
    const run = await runClient([claude, '-p', 'List the files here with your tools, then read a.txt.',
      '--output-format', 'json', '--max-turns', '4', '--allowedTools', 'Read,Glob,Grep,LS', '--model', model], {
      cwd: work,
      env: {
        HOME: home,
        ANTHROPIC_BASE_URL: proxy.url,
        ANTHROPIC_AUTH_TOKEN: 'unused',
        ANTHROPIC_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: model,
        CLAUDE_CODE_SUBAGENT_MODEL: model,
        CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(CODER_CONTEXT),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
    });
    t.diagnostic(`claude exited ${run.code ?? run.signal}; ${proxy.requests.length} requests; HOME: ${listTree(home).join(', ')}`);
    assert.equal(run.code, 0, `claude failed:\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-4000)}`);
    assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
    assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
    const turns = proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens'));
    const results = turns.flatMap((r) => (Array.isArray(r.body?.messages) ? r.body.messages : []))
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((block) => block.type === 'tool_result');
    assert.ok(results.length >= 1, 'Claude Code sent a tool\'s result back: the model called a tool and Claude Code ran it');
  });
});
