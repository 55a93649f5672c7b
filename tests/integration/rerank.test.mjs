// POST /v1/rerank (Jina's and Cohere's shape) on a real llama-server with
// --reranking, on a synthetic reranker (zest-make-model --preset
// tiny-rerank: a qwen3-architecture model with rank pooling, a classifier
// head and Qwen3-Reranker's prompt template). Random weights give random
// scores; what is checked is that zest passes the engine's own scores on,
// best first, cut to top_n, and refuses what it cannot rerank.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineArgv, enginePost, makeHome, startZest } from '../lib/zest.mjs';

const documents = ['Paris is the capital of France.', { text: 'Bananas are yellow.' }, 'The Eiffel Tower is in Paris.', 'Rust is a language.'];
const texts = documents.map((d) => (typeof d === 'string' ? d : d.text));

describe('reranking', () => {
  let zest;
  before(async () => { zest = await startZest({ home: makeHome({ tiny: 'tiny', judge: 'tiny-rerank' }) }); });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('the engine\'s scores, best first, cut to top_n, with the documents when asked', async () => {
    const r = await zest.json('/v1/rerank', { model: 'judge', query: 'What is the capital of France?', documents, top_n: 3, return_documents: true });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.equal(r.data.model, 'judge');
    assert.equal(r.data.object, 'list');
    assert.ok(r.data.usage.prompt_tokens > 0, JSON.stringify(r.data.usage));
    assert.equal(r.data.results.length, 3);
    const scores = r.data.results.map((x) => x.relevance_score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'best first');
    for (const x of r.data.results) assert.equal(x.document.text, texts[x.index]);
    assert.equal(new Set(r.data.results.map((x) => x.index)).size, 3);
    // The same scores the engine gives, on its own socket (a test-only view).
    const [instance] = (await zest.instances()).filter((i) => i.model === 'judge');
    assert.ok(engineArgv(instance.pid).includes('--reranking'), 'the engine runs with --reranking');
    const direct = await enginePost(instance.socket, '/v1/rerank', { query: 'What is the capital of France?', documents: texts });
    assert.equal(direct.status, 200);
    const byIndex = new Map(direct.data.results.map((x) => [x.index, x.relevance_score]));
    const expected = [...byIndex.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([index]) => index);
    assert.deepEqual(r.data.results.map((x) => x.index), expected);
    for (const x of r.data.results) assert.ok(Math.abs(x.relevance_score - byIndex.get(x.index)) < 1e-6);
    // All of them without top_n; no documents unless asked.
    const all = await zest.json('/v1/rerank', { model: 'judge', query: 'capital', documents });
    assert.equal(all.data.results.length, documents.length);
    assert.ok(all.data.results.every((x) => x.document === undefined));
    const models = (await zest.json('/v1/models')).data.data;
    assert.equal(models.find((m) => m.id === 'judge').type, 'reranker');
    const metrics = await (await zest.fetch('/metrics')).text();
    assert.match(metrics, /^zest_requests_total\{api="openai",endpoint="rerank",model="judge",status="200"\} 2$/m);
  });

  test('what cannot be reranked is a 400 naming why; an unknown model a 404', async () => {
    const cases = [
      [{ model: 'tiny', query: 'q', documents: ['a'] }, 400, /not a reranker/],
      [{ model: 'judge', documents: ['a'] }, 400, /query/],
      [{ model: 'judge', query: 'q', documents: [] }, 400, /documents/],
      [{ model: 'judge', query: 'q', documents: [{ txt: 'a' }] }, 400, /documents\[0\]/],
      [{ model: 'judge', query: 'q', documents: ['a'], top_n: 0 }, 400, /top_n/],
      [{ query: 'q', documents: ['a'] }, 400, /model/],
      [{ model: 'nope', query: 'q', documents: ['a'] }, 404, /not found/],
    ];
    for (const [body, status, pattern] of cases) {
      const r = await zest.json('/v1/rerank', body);
      assert.equal(r.status, status, JSON.stringify([body, r.data]));
      assert.match(r.data.error.message, pattern);
    }
    const chat = await zest.json('/v1/chat/completions', { model: 'judge', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.status, 400);
    assert.match(chat.data.error.message, /is a reranker; use \/v1\/rerank/);
  });
});
