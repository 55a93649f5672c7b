import { describe, expect, it } from 'vitest';
import { Conversations, byRecency, exportJson, imagesOf, newConversation, parseImport, reduce, titleFrom } from './conversations';

function start(): Conversations {
  return reduce({}, { type: 'put', conversation: newConversation('a', 'tiny', '', 1) });
}

describe('reduce', () => {
  it('titles a conversation from its first user message', () => {
    let s = reduce(start(), { type: 'append', id: 'a', message: { role: 'user', content: '  What is 2+2?\nthanks' }, now: 2 });
    s = reduce(s, { type: 'append', id: 'a', message: { role: 'user', content: 'other' }, now: 3 });
    expect(s.a.title).toBe('What is 2+2?');
    expect(s.a.updated).toBe(3);
    expect(titleFrom('x'.repeat(80))).toHaveLength(60);
  });

  it('titles a message of images alone after them, and lists the images a request will carry', () => {
    const png = 'data:image/png;base64,AA==';
    const jpeg = 'data:image/jpeg;base64,AAAA';
    let s = reduce(start(), { type: 'append', id: 'a', message: { role: 'user', content: ' ', images: [png] }, now: 2 });
    expect(s.a.title).toBe('Image');
    expect(titleFrom('', 3)).toBe('3 images');
    expect(titleFrom('What is this?', 1)).toBe('What is this?');
    s = reduce(s, { type: 'append', id: 'a', message: { role: 'assistant', content: 'a cat' }, now: 3 });
    s = reduce(s, { type: 'append', id: 'a', message: { role: 'user', content: 'and these?', images: [jpeg, png] }, now: 4 });
    expect(imagesOf(s.a)).toEqual([png, jpeg, png]);
    expect(imagesOf(undefined)).toEqual([]);
  });

  it('streams into the last message, content and reasoning apart', () => {
    let s = reduce(start(), { type: 'append', id: 'a', message: { role: 'assistant', content: '' }, now: 2 });
    s = reduce(s, { type: 'appendToLast', id: 'a', reasoning: 'hmm ' });
    s = reduce(s, { type: 'appendToLast', id: 'a', content: 'Hel' });
    s = reduce(s, { type: 'appendToLast', id: 'a', content: 'lo', reasoning: 'ok' });
    s = reduce(s, { type: 'updateLast', id: 'a', patch: { stats: { tokensPerSecond: 9 } }, now: 4 });
    expect(s.a.messages[0]).toEqual({ role: 'assistant', content: 'Hello', reasoning: 'hmm ok', stats: { tokensPerSecond: 9 } });
  });

  it('truncates after an edited message, and leaves the old state alone', () => {
    let s = start();
    for (const content of ['q1', 'a1', 'q2', 'a2']) {
      s = reduce(s, { type: 'append', id: 'a', message: { role: content[0] === 'q' ? 'user' : 'assistant', content }, now: 2 });
    }
    const before = s;
    s = reduce(s, { type: 'truncate', id: 'a', length: 2, now: 5 });
    expect(s.a.messages.map((m) => m.content)).toEqual(['q1', 'a1']);
    expect(before.a.messages).toHaveLength(4);
  });

  it('deletes, ignores unknown ids and orders by recency', () => {
    let s = reduce(start(), { type: 'put', conversation: newConversation('b', 'tiny', '', 5) });
    expect(byRecency(s).map((c) => c.id)).toEqual(['b', 'a']);
    expect(reduce(s, { type: 'appendToLast', id: 'zz', content: 'x' })).toBe(s);
    s = reduce(s, { type: 'delete', id: 'b' });
    expect(Object.keys(s)).toEqual(['a']);
  });
});

describe('export and import', () => {
  it('round-trips an export', () => {
    let s = start();
    s = reduce(s, { type: 'append', id: 'a', message: { role: 'user', content: 'hi', images: ['data:image/png;base64,AA=='] }, now: 2 });
    const parsed = parseImport(exportJson(s));
    expect(parsed).toEqual({ ok: true, conversations: [s.a] });
  });

  it('rejects files that are not an export, naming the problem', () => {
    expect(parseImport('{nope')).toEqual({ ok: false, error: 'The file is not JSON.' });
    expect(parseImport('[]').ok).toBe(false);
    const bad = (c: unknown) => parseImport(JSON.stringify({ format: 'zest-conversations', version: 1, conversations: [c] }));
    expect(bad({ id: 'x', messages: [{ role: 'system', content: 'x' }] })).toEqual({
      ok: false,
      error: 'Invalid file: conversations[0].messages[0].role must be "user" or "assistant".',
    });
    expect(bad({ id: 'x', messages: [{ role: 'user', content: 'x', images: ['javascript:1'] }] }).ok).toBe(false);
    // Images only as base64 data: URLs of an image type: nothing fetched, nothing run.
    for (const url of ['data:text/html;base64,PGI+', 'data:image/png,<svg onload=x>', 'https://example.com/a.png',
      'data:image/png;base64,AA==" onerror="x', 42]) {
      expect(bad({ id: 'x', messages: [{ role: 'user', content: 'x', images: [url] }] })).toEqual({
        ok: false, error: 'Invalid file: conversations[0].messages[0].images must be a list of base64 data:image/ URLs.',
      });
    }
    expect(bad({ messages: [] }).ok).toBe(false);
  });

  it('drops unknown fields and fills missing optional ones', () => {
    const r = parseImport(JSON.stringify({
      format: 'zest-conversations',
      conversations: [{ id: 'x', evil: '<script>', messages: [{ role: 'user', content: 'hi', onclick: 1 }] }],
    }));
    expect(r).toEqual({
      ok: true,
      conversations: [{ id: 'x', title: 'Imported chat', model: '', system: '', messages: [{ role: 'user', content: 'hi' }], created: 0, updated: 0 }],
    });
  });
});
