// Codex CLI (@openai/codex, pinned in tests/agents/package.json), unchanged,
// headless (`codex exec`) in an empty HOME against zest's Responses API as
// a custom provider, through a recording proxy: one turn in which the model
// calls one of Codex's tools, Codex runs it and sends the result, and the
// model answers; no request refused, none sent twice.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/recording_proxy.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';
import { CODER, CODER_CONTEXT, emptyHome, listTree, modules, runClient, scratchProject } from './lib/agents.mjs';

const codex = path.join(modules, '@openai/codex/bin/codex.js');

describe('Codex CLI', () => {
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
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome);
    // A custom provider as Codex's docs describe one; no retries, so a
    // refused request shows as a failure rather than a second try.
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [
      'model = "coder"',
      'model_provider = "zest"',
      'approval_policy = "never"',
      'sandbox_mode = "read-only"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[model_providers.zest]',
      'name = "zest"',
      `base_url = "${proxy.url}/v1"`,
      'env_key = "ZEST_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'));
    const run = await runClient([process.execPath, codex, 'exec', '--skip-git-repo-check', '--ephemeral', '--json',
      'List the files here, then read a.txt and say its first line.'], {
      cwd: work, env: { HOME: home, CODEX_HOME: codexHome, ZEST_API_KEY: 'unused' },
    });
    t.diagnostic(`codex exited ${run.code ?? run.signal}; ${proxy.requests.length} requests; HOME: ${listTree(home).join(', ')}`);
    assert.equal(run.code, 0, `codex failed:\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-4000)}`);
    assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
    assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
    const turns = proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/responses'));
    const outputs = turns.flatMap((r) => (Array.isArray(r.body?.input) ? r.body.input : []))
      .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output');
    assert.ok(outputs.length >= 1, 'Codex sent a tool\'s result back: the model called a tool and Codex ran it');
  });
});
