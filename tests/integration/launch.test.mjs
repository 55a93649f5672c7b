// `zest launch AGENT` where the agent is not there or not known: the
// install command, or the agents it knows, never a stack trace. (Each
// agent launched for a real turn: tests/agents/*.test.mjs, "started by
// zest launch".)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest, zestBin } from '../lib/zest.mjs';

describe('zest launch', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({ tiny: 'tiny' }) }); });
  after(async () => { await zest.stop(); zest.cleanup(); });
  const launch = (args, env = {}) => spawnSync(zestBin, ['launch', ...args],
    { env: { PATH: '/nonexistent', HOME: '/nonexistent', ZEST_HOST: zest.url, ...env }, encoding: 'utf8' });

  test('an agent that is not installed gets its install command', () => {
    for (const [agent, pkg] of [['claude', '@anthropic-ai/claude-code'], ['codex', '@openai/codex'],
      ['opencode', 'opencode-ai'], ['qwen', '@qwen-code/qwen-code'], ['continue', '@continuedev/cli']]) {
      const r = launch([agent]);  // the one model zest serves is chosen
      assert.equal(r.status, 127, `${agent}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`${agent} is not installed .*\\n  npm install -g ${pkg.replace('/', '\\/')}\\n$`));
    }
  });

  test('an unknown agent, an unknown model and no server are told so', () => {
    const other = launch(['cursor']);
    assert.equal(other.status, 1);
    assert.match(other.stderr, /zest launch knows claude, codex, opencode, qwen, continue; not 'cursor'/);
    const model = launch(['claude', '--model', 'nope']);
    assert.equal(model.status, 1);
    assert.match(model.stderr, /nope/);
    const down = launch(['claude'], { ZEST_HOST: 'http://127.0.0.1:9' });
    assert.equal(down.status, 1);
    assert.match(down.stderr, /zest serve|not running|could not connect/i);
  });
});
