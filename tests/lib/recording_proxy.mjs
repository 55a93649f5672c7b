// A recording proxy for the coding-agent tests: the client under test
// talks to it as if it were zest, it passes every request on to zest
// unchanged and streams the answer back, and it keeps what crossed it, so a
// test can fail on what a real client did: an answer of 400 or more, a
// request sent twice (a client's retry after an error it hid, as Claude
// Code did after a 400), or an error inside an answer of 200 (an SSE
// `error` event, or an `"error"` member, that a client may show or swallow
// but that is a failure all the same).
//
// Recorded per request: method, path (with its query), headers without the
// credentials (Authorization, x-api-key, cookies), the body (parsed when it
// is JSON), the status zest answered, its whole answer (a stream's every
// event: the answers of the synthetic models the tests run are short),
// whether the client left before the answer's end, and when it started.
import fs from 'node:fs';
import http from 'node:http';

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization']);

// Starts a proxy in front of `target` (zest's URL, "http://127.0.0.1:PORT"),
// on a loopback port, or with `socket` on that UNIX socket's path instead
// (a sandboxed client's only way out: tests/agents/lib/sandbox.mjs).
export async function startRecordingProxy(target, { socket } = {}) {
  const upstream = new URL(target);
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(Object.entries(req.headers)
        .filter(([name]) => !SECRET_HEADERS.has(name)));
      const record = { method: req.method, path: req.url, headers, body: parseBody(body), status: 0, at: Date.now() };
      // Settles once zest's answer has ended (or broke off): a client may
      // stop reading and exit before the last bytes reach the proxy.
      let settle;
      Object.defineProperty(record, 'done', { value: new Promise((resolve) => { settle = resolve; }) });
      requests.push(record);
      const forward = http.request({
        host: upstream.hostname, port: upstream.port, method: req.method, path: req.url,
        headers: { ...req.headers, host: upstream.host },
      }, (answer) => {
        record.status = answer.statusCode;
        record.contentType = answer.headers['content-type'] ?? '';
        res.writeHead(answer.statusCode, answer.headers);
        res.on('close', () => { if (record.answer === undefined) record.left = true; });
        // Streams (SSE) pass through as they come. Not pipe(): a client that
        // leaves once it has what it needs (Codex exits on
        // response.completed) would unpipe and pause the answer before its
        // end, and the record would never be whole.
        const parts = [];
        answer.on('data', (c) => {
          parts.push(c);
          if (!res.destroyed) res.write(c);
        });
        answer.on('end', () => {
          record.answer = Buffer.concat(parts).toString('utf8');
          res.end();
        });
        answer.on('close', () => {
          if (record.answer === undefined) {
            record.answer = Buffer.concat(parts).toString('utf8');
            record.cut = true;
            res.destroy();  // as zest broke off, so does the proxy
          }
          settle();
        });
      });
      forward.on('error', (e) => {
        record.status = 502;
        record.error = e.message;
        settle();
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`recording proxy: ${e.message}`);
      });
      forward.end(body);
    });
  });
  if (socket) {
    fs.rmSync(socket, { force: true });
    await new Promise((resolve) => server.listen(socket, resolve));
  } else {
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  }
  return {
    url: socket ? null : `http://127.0.0.1:${server.address().port}`,
    socket: socket ?? null,
    requests,
    // Resolves once every answer so far has ended or broken off: what the
    // checks below read is then whole.
    settled: () => Promise.all(requests.map((r) => r.done)),
    // Requests zest answered with 400 or more (or the proxy could not pass on).
    failures: () => requests.filter((r) => r.status >= 400),
    // Requests that repeat an earlier one exactly (method, path and body).
    repeats: () => {
      const seen = new Set();
      return requests.filter((r) => {
        const key = `${r.method} ${r.path} ${JSON.stringify(r.body)}`;
        if (seen.has(key)) return true;
        seen.add(key);
        return false;
      });
    },
    // The errors inside answers of 200: {method, path, error} for each SSE
    // event named `error`, each event or JSON answer with a `type` of
    // "error" or an `error` member (OpenAI's chat stream, Anthropic's and
    // the Responses API's error events, `response.failed`), and each answer
    // that broke off before its end. Call after settled().
    errors: () => requests.filter((r) => r.status === 200).flatMap((r) => answerErrors(r)
      .map((error) => ({ method: r.method, path: r.path, error }))),
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(resolve);
    }),
  };
}

// What answerErrors reads as an error in one JSON value.
function errorIn(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  if (value.type === 'error' || value.type === 'response.failed') return value;
  if ('error' in value && value.error !== null) return value;
  return null;
}

// The errors in one recorded answer, as strings.
export function answerErrors(record) {
  if (record.answer === undefined) return ['the answer has not ended yet'];
  if (record.cut) return ['the answer broke off before its end'];
  const text = record.answer;
  if (!record.contentType.startsWith('text/event-stream')) {
    const value = parseBody(Buffer.from(text));
    const error = errorIn(value);
    return error ? [JSON.stringify(error)] : [];
  }
  const errors = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const name = /^event: ?(.*)$/m.exec(block)?.[1];
    const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
    if (name === 'error') errors.push(`event: error ${data}`);
    else if (data && data !== '[DONE]') {
      let value;
      try { value = JSON.parse(data); } catch { errors.push(`not JSON: ${data.slice(0, 200)}`); continue; }
      const error = errorIn(value);
      if (error) errors.push(JSON.stringify(error));
    }
  }
  return errors;
}

function parseBody(bytes) {
  if (bytes.length === 0) return null;
  const text = bytes.toString('utf8');
  try { return JSON.parse(text); } catch { return text; }
}
