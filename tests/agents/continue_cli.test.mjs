// Continue's CLI (`cn`, @continuedev/cli, pinned in tests/agents/package.json),
// unchanged, headless (`cn -p`) in an empty HOME against zest's chat API as
// an OpenAI provider in a config file, through a recording proxy: one turn
// in which the model calls one of its tools, cn runs it and sends the
// result, and the model answers; no request refused, none sent twice.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/recording_proxy.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';
import { CODER, CODER_CONTEXT, emptyHome, listTree, modules, runClient, scratchProject } from './lib/agents.mjs';

const cn = path.join(modules, '@continuedev/cli/dist/cn.js');

describe('Continue CLI', () => {
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
    const config = path.join(home, 'zest.yaml');
    fs.writeFileSync(config, [
      'name: zest',
      'version: 1.0.0',
      'schema: v1',
      'models:',
      '  - name: zest',
      '    provider: openai',
      '    model: coder',
      `    apiBase: ${proxy.url}/v1`,
      '    apiKey: unused',
      '    roles: [chat, edit, apply]',
      '    capabilities: [tool_use]',
      `    defaultCompletionOptions: { maxTokens: 2048, contextLength: ${CODER_CONTEXT} }`,
      '',
    ].join('\n'));
    const run = await runClient([process.execPath, cn, '-p', '--auto', '--config', config,
      'List the files here, then read a.txt.'], {
      cwd: work,
      env: { HOME: home, FORCE_NO_TTY: 'true', CONTINUE_METRICS_ENABLED: '0', CONTINUE_CLI_ENABLE_TELEMETRY: '0' },
    });
    t.diagnostic(`cn exited ${run.code ?? run.signal}; ${proxy.requests.length} requests; HOME: ${listTree(home).join(', ')}`);
    assert.equal(run.code, 0, `cn failed:\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-4000)}`);
    assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
    assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
    const results = proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/completions'))
      .flatMap((r) => (Array.isArray(r.body?.messages) ? r.body.messages : []))
      .filter((m) => m.role === 'tool');
    assert.ok(results.length >= 1, 'cn sent a tool\'s result back: the model called a tool and cn ran it');
  });
});
