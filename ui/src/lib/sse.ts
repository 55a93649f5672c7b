// Server-sent events over fetch. EventSource cannot send an Authorization
// header, so every stream in the app (chat, pulls, logs, live stats) is read
// with this: a pure, incremental parser of the text/event-stream format
// and a loop that feeds it a response body.

/** Returned by SseParser for each complete event that carried data. */
export type SseEvent = string;

/**
 * Incremental text/event-stream parser. Feed it text in chunks of any size
 * (split anywhere, even inside a CRLF); it returns the data of each event
 * that completed: its `data:` lines joined with "\n". Comments (lines that
 * start with ':') and other fields are ignored, as are events without data.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  // A chunk that ended in '\r' may be the first half of a CRLF.
  private pendingCr = false;

  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (text === '') return [];
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = text.endsWith('\r');
    this.buffer += text;
    const events: SseEvent[] = [];
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop() ?? '';
    for (const line of lines) this.line(line, events);
    return events;
  }

  /** Ends the stream: an event not followed by a blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    this.buffer = '';
    this.data = [];
    return [];
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.data.push(value);
  }
}

/**
 * Reads an SSE response body to its end (or to "[DONE]"), calling onData
 * with each event's data. Resolves when the stream ends; rejects with an
 * AbortError when the fetch's signal aborts.
 */
export async function readSse(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const data of parser.push(decoder.decode(value, { stream: true }))) {
        if (data === '[DONE]') return;
        onData(data);
      }
    }
  } finally {
    // After [DONE], an error event or an exception: stop reading, close the stream.
    reader.cancel().catch(() => undefined);
  }
}
