// The model's tokenizer through zest: POST /v1/tokenize and /v1/detokenize
// run on the model's engine (the real llama-server on synthetic models).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest } from '../lib/zest.mjs';

describe('tokenize and detokenize', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({ tiny: 'tiny', 'embed-tiny': 'tiny-embed' }) }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('text to tokens and back, with the model\'s own tokenizer', async () => {
    const text = 'hello world, this is zest';
    const plain = await zest.json('/v1/tokenize', { model: 'tiny', content: text, add_special: false });
    assert.equal(plain.status, 200, JSON.stringify(plain.data));
    assert.equal(plain.data.model, 'tiny');
    assert.ok(plain.data.tokens.length > 3 && plain.data.tokens.every(Number.isInteger));
    assert.equal(plain.data.count, plain.data.tokens.length);
    const special = await zest.json('/v1/tokenize', { model: 'tiny', content: text, add_special: true });
    assert.equal(special.data.count, plain.data.count + 1, 'the BOS token the model adds');
    const back = await zest.json('/v1/detokenize', { model: 'tiny', tokens: plain.data.tokens });
    assert.equal(back.status, 200);
    assert.equal(back.data.content, text);
    const pieces = await zest.json('/api/v1/tokenize', { model: 'tiny', prompt: text, add_special: false, with_pieces: true });
    assert.equal(pieces.data.tokens.map((t) => t.piece).join(''), text);
    const embed = await zest.json('/v1/tokenize', { model: 'embed-tiny', content: text });
    assert.equal(embed.status, 200, 'embedding models have a tokenizer too');
  });

  test('bad requests are 400 naming the field; an unknown model 404', async () => {
    const cases = [
      [{ content: 'x' }, 400, /model is required/],
      [{ model: 'tiny', content: 3 }, 400, /content must be a string/],
      [{ model: 'tiny', content: 'x', with_pieces: 'yes' }, 400, /with_pieces/],
      [{ model: 'nope', content: 'x' }, 404, /nope/],
    ];
    for (const [body, status, pattern] of cases) {
      const r = await zest.json('/v1/tokenize', body);
      assert.equal(r.status, status, JSON.stringify(r.data));
      assert.match(r.data.error.message, pattern);
    }
    const bad = await zest.json('/v1/detokenize', { model: 'tiny', tokens: ['a'] });
    assert.equal(bad.status, 400);
    assert.match(bad.data.error.message, /tokens must be a list of token ids/);
  });
});
