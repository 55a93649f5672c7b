// opencode (opencode-ai, pinned in tests/agents/package.json), unchanged,
// headless (`opencode run`) in an empty HOME against zest's chat API as an
// OpenAI-compatible provider, through a recording proxy: one turn in which
// the model calls one of opencode's tools, opencode runs it and sends the
// result, and the model answers; no request refused, none sent twice.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/recording_proxy.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';
import { CODER, CODER_CONTEXT, emptyHome, listTree, modules, runClient, scratchProject } from './lib/agents.mjs';

const opencode = path.join(modules, 'opencode-ai/bin/opencode.exe');

describe('opencode', () => {
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
    const config = {
      $schema: 'https://opencode.ai/config.json',
      model: 'zest/coder',
      small_model: 'zest/coder',
      share: 'disabled',
      autoupdate: false,
      provider: {
        zest: {
          npm: '@ai-sdk/openai-compatible',
          name: 'zest',
          options: { baseURL: `${proxy.url}/v1`, apiKey: 'unused' },
          models: { coder: { name: 'coder', tool_call: true, limit: { context: CODER_CONTEXT, output: 4096 } } },
        },
      },
    };
    const run = await runClient([opencode, 'run', '-m', 'zest/coder', '--format', 'json',
      'List the files here, then read a.txt.'], {
      cwd: work,
      env: {
        HOME: home,
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        // No network but zest: no model list, updates, plugins or LSP downloads.
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_CLAUDE_CODE: '1',
      },
    });
    t.diagnostic(`opencode exited ${run.code ?? run.signal}; ${proxy.requests.length} requests; HOME: ${listTree(home).join(', ')}`);
    assert.equal(run.code, 0, `opencode failed:\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-4000)}`);
    assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
    assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
    const results = proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/completions'))
      .flatMap((r) => (Array.isArray(r.body?.messages) ? r.body.messages : []))
      .filter((m) => m.role === 'tool');
    assert.ok(results.length >= 1, 'opencode sent a tool\'s result back: the model called a tool and opencode ran it');
  });
});
