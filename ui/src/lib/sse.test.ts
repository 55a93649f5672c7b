import { describe, expect, it } from 'vitest';
import { SseParser, readSse } from './sse';

function parseAll(chunks: string[]): string[] {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c));
}

// Every way of cutting `text` into two or three pieces.
function splits(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j += 3) out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return out;
}

describe('SseParser', () => {
  const stream = 'data: {"a":1}\n\n: queued (12 s)\n\ndata: one\ndata: two\n\nevent: x\nid: 3\ndata:tight\n\ndata: [DONE]\n\n';
  const expected = ['{"a":1}', 'one\ntwo', 'tight', '[DONE]'];

  it('parses events, joins multi-line data and skips comments', () => {
    expect(parseAll([stream])).toEqual(expected);
  });

  it('gives the same events however the stream is split', () => {
    for (const parts of splits(stream)) expect(parseAll(parts)).toEqual(expected);
  });

  it('accepts CRLF and CR line ends, even split between chunks', () => {
    const crlf = stream.replace(/\n/g, '\r\n');
    for (const parts of splits(crlf)) expect(parseAll(parts)).toEqual(expected);
    expect(parseAll([stream.replace(/\n/g, '\r')])).toEqual(expected);
  });

  it('holds an incomplete event until its blank line', () => {
    const p = new SseParser();
    expect(p.push('data: par')).toEqual([]);
    expect(p.push('tial\n')).toEqual([]);
    expect(p.push('\n')).toEqual(['partial']);
  });

  it('keeps an empty data line as an empty string, and skips events without data', () => {
    expect(parseAll(['data:\n\nevent: ping\n\n'])).toEqual(['']);
  });
});

describe('readSse', () => {
  function body(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
    return new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
  }

  it('decodes UTF-8 split inside a character and stops at [DONE]', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\ndata: [DONE]\n\ndata: after\n\n');
    const seen: string[] = [];
    await readSse(body([bytes.slice(0, 8), bytes.slice(8, 17), bytes.slice(17)]), (d) => seen.push(d));
    expect(seen).toEqual(['héllo ✓']);
  });
});
