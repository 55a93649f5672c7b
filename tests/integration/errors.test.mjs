// Bad input gets a clear OpenAI-shaped error and the right status code.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chatBody, descendants, makeHome, startZest, syntheticModel } from '../lib/zest.mjs';

function assertOpenAiError(r, status, code) {
  assert.equal(r.status, status, JSON.stringify(r.data));
  assert.equal(typeof r.data.error, 'object', JSON.stringify(r.data));
  assert.equal(typeof r.data.error.message, 'string');
  assert.ok(r.data.error.message.length > 0);
  assert.ok('type' in r.data.error && 'param' in r.data.error && 'code' in r.data.error);
  if (code) assert.equal(r.data.error.code, code);
}

describe('errors', () => {
  let zest;
  before(async () => {
    const home = makeHome({ tiny: 'tiny' });
    // A model zest can read but the engine cannot load: an unknown architecture.
    const good = fs.readFileSync(syntheticModel('tiny'));
    const broken = Buffer.from(good);
    const at = broken.indexOf('llama', broken.indexOf('general.architecture'));
    broken.write('llamz', at);
    fs.writeFileSync(path.join(home, 'models', 'broken.gguf'), broken);
    // A model cut off in the middle of its tensors.
    fs.writeFileSync(path.join(home, 'models', 'truncated.gguf'), good.subarray(0, good.length / 2));
    fs.writeFileSync(path.join(home, 'models', 'garbage.gguf'), 'this is not a gguf file');
    zest = await startZest({ home, args: ['--max-body-bytes', '65536'] });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('malformed JSON is 400', async () => {
    assertOpenAiError(await zest.json('/v1/chat/completions', '{"model": "tiny",'), 400);
  });

  test('missing model or messages is 400 naming the field', async () => {
    let r = await zest.json('/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }] });
    assertOpenAiError(r, 400);
    assert.equal(r.data.error.param, 'model');
    r = await zest.json('/v1/chat/completions', { model: 'tiny' });
    assertOpenAiError(r, 400);
    assert.equal(r.data.error.param, 'messages');
  });

  test('unknown model is 404 model_not_found', async () => {
    assertOpenAiError(await zest.json('/v1/chat/completions', chatBody('nope')), 404, 'model_not_found');
    assertOpenAiError(await zest.json('/v1/models/nope'), 404, 'model_not_found');
  });

  test('a body over the limit is 413', async () => {
    const big = chatBody('tiny', { messages: [{ role: 'user', content: 'x'.repeat(100_000) }] });
    assertOpenAiError(await zest.json('/v1/chat/completions', big), 413);
  });

  test('wrong method is 405, unknown route 404', async () => {
    assertOpenAiError(await zest.json('/v1/chat/completions', undefined, { method: 'GET' }), 405);
    assertOpenAiError(await zest.json('/v1/nothing-here'), 404);
  });

  test('a corrupt GGUF is a 500 whose engine reason is in the log, and leaves nothing running', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('broken'));
    assertOpenAiError(r, 500, 'engine_failed');
    assert.match(r.data.error.message, /broken/);
    // The engine's reason goes to zest's log, not to the client (issue 52, 9).
    assert.match(r.data.error.message, /while loading \(its output is in zest's log\)/);
    assert.match(zest.logs(), /while loading; its last output:[\s\S]*(error|fail)/i);
    assert.deepEqual(descendants(zest.pid), []);
    assert.deepEqual(await zest.instances(), []);
  });

  test('files that are not valid GGUF are refused before starting an engine', async () => {
    for (const name of ['garbage', 'truncated']) {
      const r = await zest.json('/v1/chat/completions', chatBody(name));
      assertOpenAiError(r, 500);
      assert.match(r.data.error.message, new RegExp(name));
      assert.deepEqual(descendants(zest.pid), []);
    }
  });
});
