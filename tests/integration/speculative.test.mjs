// Speculative decoding with the real engine: a draft model named in a
// load's options (or config.toml) is paired with its target when their
// tokenizers match, reaches llama-server's command line, is counted in the
// memory plan on the target's device, and the engine's drafted and accepted
// tokens show in /metrics and /api/v1/stats; a draft with another
// vocabulary is refused with the reason (400 on load, a log line and a
// plain load from config.toml). Under `auto`, a draft whose acceptance is
// too low to pay is switched off once enough tokens were drafted (the model
// reloads without it); one that agrees, or one asked for by name, stays.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { descendants, makeHome, startZest, syntheticDraftPair, waitFor } from '../lib/zest.mjs';

const engineArgv = (zest, model) => {
  for (const p of descendants(zest.pid).filter((d) => d.comm === 'llama-server')) {
    const argv = fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
    if (argv[argv.indexOf('--alias') + 1] === model) return argv;
  }
  return null;
};
const flag = (argv, name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const instance = async (zest, model) => (await zest.instances()).find((i) => i.model === model);
const counter = async (zest, name, model) => {
  const text = await (await zest.fetch('/metrics')).text();
  return Number(new RegExp(`^${name}\\{model="${model}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
};

// The draft with one token renamed (same length, so the file stays valid):
// another vocabulary, which the tokenizer check must catch.
function oddDraft(draft, dir) {
  const bytes = fs.readFileSync(draft);
  const at = bytes.indexOf(Buffer.from('<tool_call>'));
  assert.ok(at > 0, 'the draft has a <tool_call> token');
  Buffer.from('<tool_cbll>').copy(bytes, at);
  const out = path.join(dir, 'odd.gguf');
  fs.writeFileSync(out, bytes);
  return out;
}

describe('speculative decoding', () => {
  let zest;
  before(async () => {
    const { target, draft } = syntheticDraftPair('tiny');
    const home = makeHome({ t: target, d: draft, plain: target }, {
      config: '[models."plain"]\ndraft = "odd"\n',
    });
    oddDraft(draft, path.join(home, 'models'));
    zest = await startZest({ home, env: { ZEST_LOG_LEVEL: 'info' } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a draft with the target\'s tokenizer is paired, drafts, and is counted', async () => {
    const r = await zest.json('/api/v1/load', { model: 't', options: { draft: 'd', draft_max: 8 } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.deepEqual(r.data.options, { draft: 'd', draft_max: 8 });
    const argv = engineArgv(zest, 't');
    assert.equal(flag(argv, '--spec-type'), 'draft-simple', argv.join(' '));
    assert.match(flag(argv, '--model-draft'), /d\.gguf$/);
    assert.equal(flag(argv, '--spec-draft-n-max'), '8');

    const chat = await zest.json('/v1/chat/completions', {
      model: 't', messages: [{ role: 'user', content: 'Go on.' }], max_tokens: 48, temperature: 0 });
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    await waitFor(async () => (await counter(zest, 'zest_spec_drafted_tokens_total', 't')) > 0,
      { timeout: 10000, what: 'drafted tokens in /metrics' });
    const drafted = await counter(zest, 'zest_spec_drafted_tokens_total', 't');
    const accepted = await counter(zest, 'zest_spec_accepted_tokens_total', 't');
    // The pair agrees by construction (at tiny's width of 64, on some of
    // the tokens: the bench preset's pair on nearly all).
    assert.ok(accepted > 0 && accepted <= drafted, `accepted ${accepted} of ${drafted}`);
    const stats = (await zest.json('/api/v1/stats')).data;
    const t = stats.speculative.find((s) => s.model === 't');
    assert.equal(t.drafted_tokens, drafted);
    assert.equal(t.accepted_tokens, accepted);
    assert.equal(t.acceptance, accepted / drafted);
    assert.equal(stats.draft_tokens, drafted);
  });

  test('the memory plan counts the draft on the target\'s device, and ps says so', async () => {
    const t = await instance(zest, 't');
    const cpu = t.placement.predicted_bytes.CPU;
    // Weights, KV cache and compute: at least the draft file's tensors.
    const draftFile = fs.statSync(path.join(zest.home, 'models', 'd.gguf')).size;
    assert.ok(cpu.draft > 0.9 * draftFile, JSON.stringify(cpu));
    assert.equal(cpu.total, cpu.weights + cpu.kv_cache + cpu.compute + cpu.overhead + cpu.prompt_cache + cpu.learned + cpu.draft);
    assert.deepEqual(t.placement.speculative, { kind: 'draft', draft: 'd', draft_device: 'CPU' });
    assert.match(t.placement.explanation, /draft model 'd' on the CPU/);
  });

  test('an Ollama create with PARAMETER draft makes a model that drafts, on an engine of its own', async () => {
    const created = await zest.json('/api/create', {
      model: 'fast', from: 't', parameters: { draft: 'd', draft_max: 4, temperature: 0 }, stream: false });
    assert.deepEqual([created.status, created.data], [200, { status: 'success' }]);
    const bad = await zest.json('/api/create', {
      model: 'worse', from: 't', parameters: { draft_max: 0 }, stream: false });
    assert.equal(bad.status, 400, JSON.stringify(bad.data));
    assert.match(bad.data.error, /parameters\.draft_max/);

    const chat = await zest.json('/api/chat', {
      model: 'fast', messages: [{ role: 'user', content: 'Go on.' }], stream: false, options: { num_predict: 24 } });
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    const fast = await instance(zest, 'fast');
    assert.deepEqual(fast.placement.speculative, { kind: 'draft', draft: 'd', draft_device: 'CPU' });
    assert.equal(flag(engineArgv(zest, 'fast'), '--spec-draft-n-max'), '4');
    await waitFor(async () => (await counter(zest, 'zest_spec_drafted_tokens_total', 'fast')) > 0,
      { timeout: 10000, what: "drafted tokens for 'fast' in /metrics" });
    // Its base keeps its own engine and options.
    assert.equal(flag(engineArgv(zest, 't'), '--spec-draft-n-max'), '8');
    await zest.json('/api/v1/unload', { model: 'fast' });
  });

  test('a draft with another vocabulary is refused with the reason', async () => {
    const r = await zest.json('/api/v1/load', { model: 't', options: { draft: 'odd' } });
    assert.equal(r.status, 400, JSON.stringify(r.data));
    assert.match(JSON.stringify(r.data), /draft 'odd' for 't' is refused: the draft's token \d+ is '<tool_cbll>'/);
    // The engine loaded with the good draft is still there.
    assert.ok(engineArgv(zest, 't').includes('--model-draft'));
  });

  test('a configured draft that does not match: a log line, and the model loads without it', async () => {
    const r = await zest.json('/api/v1/load', { model: 'plain' });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const argv = engineArgv(zest, 'plain');
    assert.equal(argv.includes('--model-draft'), false, argv.join(' '));
    await waitFor(() => /'plain' loads without speculative decoding: draft 'odd' for 'plain' is refused/.test(zest.logs()),
      { what: 'the log line' });
    const plain = await instance(zest, 'plain');
    assert.equal(plain.placement.predicted_bytes.CPU.draft, 0);
  });
});

describe('auto switch-off of a draft that does not pay', () => {
  let zest;
  before(async () => {
    const chance = syntheticDraftPair('tiny', { chance: true });
    // The small preset's pair agrees on every token (tiny's, at a width of
    // 64, on about one in eight: auto rightly switches that one off too).
    const agree = syntheticDraftPair('small');
    const home = makeHome({ ct: chance.target, cd: chance.draft, at: agree.target, ad: agree.draft });
    zest = await startZest({ home, env: { ZEST_LOG_LEVEL: 'info' } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  const ask = async (model) => {
    const chat = await zest.json('/v1/chat/completions', {
      model, messages: [{ role: 'user', content: 'Go on.' }], max_tokens: 48, temperature: 0 });
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
  };
  // Sends requests until `done` (the server's own state) holds.
  const askUntil = (model, done, what) => waitFor(async () => {
    await ask(model);
    return done();
  }, { timeout: 120000, interval: 0, what });
  const drafted = (model) => counter(zest, 'zest_spec_drafted_tokens_total', model);

  test('a draft that agrees only by chance is switched off after its sample, with a log line', async () => {
    const r = await zest.json('/api/v1/load', { model: 'ct', options: { draft: 'cd', draft_max: 16 } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const first = await instance(zest, 'ct');
    assert.equal(first.placement.speculative.kind, 'draft');
    await askUntil('ct', async () => (await instance(zest, 'ct'))?.placement.speculative?.switched_off,
      "ps saying auto switched 'ct''s draft off");

    const ct = await instance(zest, 'ct');
    assert.notEqual(ct.pid, first.pid, 'reloaded');
    const off = ct.placement.speculative.switched_off;
    assert.equal(ct.placement.speculative.kind, 'none');
    assert.equal(off.draft, 'cd');
    assert.ok(off.drafted_tokens >= 256, JSON.stringify(off));
    assert.ok(off.acceptance < 0.25, JSON.stringify(off));
    assert.equal(off.drafted_tokens, await drafted('ct'), 'every drafted token was measured');
    assert.match(ct.placement.explanation, /auto switched the draft model 'cd' off/);
    assert.equal(ct.placement.predicted_bytes.CPU.draft, 0);
    const argv = engineArgv(zest, 'ct');
    assert.equal(argv.includes('--model-draft'), false, argv.join(' '));
    assert.match(await (await zest.fetch('/metrics')).text(),
      /^zest_evictions_total\{model="ct",reason="draft_switched_off"\} 1$/m);
    const stats = (await zest.json('/api/v1/stats')).data.speculative.find((m) => m.model === 'ct');
    assert.deepEqual(stats.switched_off, off);
    assert.match(zest.logs(), /'ct': speculative decoding switched off: its draft model 'cd' had 0\.\d\d of \d+ drafted tokens accepted/);

    // Plain decoding from now on: nothing more is drafted.
    const before = await drafted('ct');
    await ask('ct');
    assert.equal(await drafted('ct'), before);
    assert.equal((await instance(zest, 'ct')).pid, ct.pid);
  });

  test('a draft asked for by name (speculative = "draft") is never switched off', async () => {
    const r = await zest.json('/api/v1/load', {
      model: 'ct', options: { draft: 'cd', draft_max: 16, speculative: 'draft' } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const first = await instance(zest, 'ct');
    assert.equal(first.placement.speculative.kind, 'draft');
    const start = await drafted('ct');
    // Twice the sample that switches an auto draft off, then one more
    // request (the one whose dispatch would reload it).
    await askUntil('ct', async () => (await drafted('ct')) - start >= 512, '512 more drafted tokens');
    await ask('ct');
    const ct = await instance(zest, 'ct');
    assert.equal(ct.pid, first.pid);
    assert.equal(ct.placement.speculative.kind, 'draft');
    assert.ok(engineArgv(zest, 'ct').includes('--model-draft'));
  });

  test('a draft that agrees stays on under auto', async () => {
    const r = await zest.json('/api/v1/load', { model: 'at', options: { draft: 'ad', draft_max: 8 } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const first = await instance(zest, 'at');
    await askUntil('at', async () => (await drafted('at')) >= 512, '512 drafted tokens');
    await ask('at');
    const at = await instance(zest, 'at');
    assert.equal(at.pid, first.pid);
    assert.deepEqual(at.placement.speculative, { kind: 'draft', draft: 'ad', draft_device: 'CPU' });
    const accepted = await counter(zest, 'zest_spec_accepted_tokens_total', 'at');
    assert.ok(accepted / (await drafted('at')) >= 0.25, `accepted ${accepted}`);
    assert.doesNotMatch(zest.logs(), /'at': speculative decoding switched off/);
  });
});
