// One key never reads another's prompt from the engine's cache (issue 52,
// HIGH 3). With keys, slots and llama-server's prompt cache were shared:
// Bob, sending the prefix Alice's system prompt opens with, saw how much of
// it the engine found cached (usage.prompt_tokens_details.cached_tokens,
// and the time it saved), one token more for each digit of her PIN he
// guessed right. Now zest gives each request the slot it is to use
// (id_slot), with the engine's cache only on a slot its own key filled;
// engines of a keyed server get no host-RAM prompt cache (--cache-ram 0),
// which any slot could read from; and a client's own id_slot and
// cache_prompt do not reach the engine. Each key still finds its own
// conversation cached. `[security] share_prompt_cache = true` shares them
// again, for keys that trust each other: the same requests then show the
// leak this test guards against. Real engine, tiny synthetic model.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { opening } from '../lib/prompts.mjs';
import { descendants, makeHome, startZest, zestBin } from '../lib/zest.mjs';

const bearer = (key) => ({ authorization: `Bearer ${key}` });
const addKey = (home, name) => execFileSync(zestBin, ['keys', 'add', name], {
  env: { ...process.env, ZEST_HOME: home }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
}).trim();

// A slot for each conversation below, so none evicts another.
const CONFIG = '[models.tiny]\nparallel = 6\nctx_size = 2048\n';

// A chat turn of `key` on a conversation that opens with `system`; its
// prompt and cached tokens as OpenAI's usage says.
async function turn(zest, key, system, question, extra = {}) {
  const body = {
    model: 'tiny', temperature: 0, max_tokens: 2, ...extra,
    messages: [{ role: 'system', content: system }, { role: 'user', content: question }],
  };
  const r = await zest.json('/v1/chat/completions', body, { headers: bearer(key) });
  assert.equal(r.status, 200, JSON.stringify(r.data));
  return { total: r.data.usage.prompt_tokens, cached: r.data.usage.prompt_tokens_details?.cached_tokens ?? 0 };
}

// The command lines of zest's llama-server engines.
function engineArgv(zest) {
  return descendants(zest.pid).filter((p) => p.comm.startsWith('llama-server')).map((p) =>
    fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0'));
}

// Keys by name: alice, bob, and two more that send one request each.
async function keyedZest(config) {
  const home = makeHome({ tiny: 'tiny' }, { config });
  const keys = Object.fromEntries(['alice', 'bob', 'mallory', 'trudy'].map((n) => [n, addKey(home, n)]));
  const zest = await startZest({ home });
  return { zest, ...keys };
}

describe('with keys, each key its own prompt cache', () => {
  let zest, alice, bob, mallory, trudy;
  before(async () => { ({ zest, alice, bob, mallory, trudy } = await keyedZest(CONFIG)); });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test("another key's prefix reads as nothing cached, the key's own as cached", async (t) => {
    const secret = opening(1, 250);
    const first = await turn(zest, alice, secret, 'my PIN is 4721');
    const again = await turn(zest, alice, secret, 'my PIN is 4721');
    t.diagnostic(`alice: ${first.cached}/${first.total}, then ${again.cached}/${again.total} cached/prompt`);
    assert.ok(first.total > 600, `a long prompt: ${first.total} tokens`);
    assert.ok(again.cached >= again.total * 0.8, `alice's own turn comes from the cache: ${JSON.stringify(again)}`);

    // Keys that never sent her prefix send it, on whichever slot zest
    // gives them and on each slot by their own id_slot with cache_prompt:
    // nothing of hers is found for them. (A key's later requests may reuse
    // what it sent itself: that tells it nothing new.)
    const probes = [await turn(zest, bob, secret, 'my PIN is 4')];
    for (const [key, id_slot] of [[mallory, 0], [trudy, 1]]) {
      probes.push(await turn(zest, key, secret, 'my PIN is 47', { id_slot, cache_prompt: true }));
    }
    t.diagnostic(`others on her prefix: ${probes.map((p) => `${p.cached}/${p.total}`).join(', ')}`);
    for (const p of probes) assert.equal(p.cached, 0, `another key read alice's prefix from the cache: ${JSON.stringify(probes)}`);

    // Bob's own conversation is cached for him as usual.
    const mine = opening(2, 250);
    await turn(zest, bob, mine, 'hello');
    const bobAgain = await turn(zest, bob, mine, 'hello');
    assert.ok(bobAgain.cached >= bobAgain.total * 0.8, `bob's own turn comes from the cache: ${JSON.stringify(bobAgain)}`);
    // And Alice's is still hers.
    const aliceLater = await turn(zest, alice, secret, 'my PIN is 4721');
    assert.ok(aliceLater.cached >= aliceLater.total * 0.8, `alice's turn after bob's: ${JSON.stringify(aliceLater)}`);
  });

  test('engines of a keyed server keep no host-RAM prompt cache', () => {
    const argv = engineArgv(zest);
    assert.ok(argv.length > 0, 'an engine runs');
    for (const a of argv) {
      const at = a.indexOf('--cache-ram');
      assert.ok(at >= 0 && a[at + 1] === '0', `--cache-ram 0: ${a.join(' ')}`);
    }
  });
});

describe('share_prompt_cache: keys that trust each other share the cache', () => {
  let zest, alice, bob;
  before(async () => { ({ zest, alice, bob } = await keyedZest(`${CONFIG}[security]\nshare_prompt_cache = true\n`)); });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test("another key's prefix is found cached", async (t) => {
    const shared = opening(3, 250);
    await turn(zest, alice, shared, 'a question');
    const probe = await turn(zest, bob, shared, 'another question');
    t.diagnostic(`bob on alice's prefix: ${probe.cached}/${probe.total}`);
    assert.ok(probe.cached >= probe.total * 0.8, `shared: ${JSON.stringify(probe)}`);
  });
});

describe('with keys, conversations still survive an unload', () => {
  let zest, home, alice, bob, ops;
  before(async () => {
    home = makeHome({ tiny: 'tiny' }, { config: '[models.tiny]\nparallel = 2\nctx_size = 2048\n' });
    alice = addKey(home, 'alice');
    bob = addKey(home, 'bob');
    ops = execFileSync(zestBin, ['keys', 'add', 'ops', '--scope', 'admin'], {
      env: { ...process.env, ZEST_HOME: home }, encoding: 'utf8',
    }).trim();
    zest = await startZest({ home });
  });
  after(async () => { await zest?.stop(); zest?.cleanup(); });

  test("each key's conversations come back from the session tier into the slots zest gives them", async (t) => {
    // Three conversations named by their openings (no session field), on
    // two slots: one of them is in no slot at the unload.
    const talks = [[alice, opening(4, 250)], [bob, opening(5, 250)], [alice, opening(6, 250)]];
    for (const [key, system] of talks) await turn(zest, key, system, 'first');
    const r = await zest.json('/api/v1/unload', { model: 'tiny' }, { headers: bearer(ops) });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const back = [];
    for (const [key, system] of talks) back.push(await turn(zest, key, system, 'first'));
    t.diagnostic(`after the unload: ${back.map((b) => `${b.cached}/${b.total}`).join(', ')} cached/prompt`);
    for (const b of back) assert.ok(b.cached >= b.total * 0.8, `restored: ${JSON.stringify(back)}`);
  });
});
