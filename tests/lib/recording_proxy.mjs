// A recording proxy for the coding-agent tests: the client under test
// talks to it as if it were zest, it passes every request on to zest
// unchanged and streams the answer back, and it keeps what crossed it, so a
// test can fail on what a real client did: an answer of 400 or more, or a
// request sent twice (a client's retry after an error it hid, as Claude
// Code did after a 400).
//
// Recorded per request: method, path (with its query), headers without the
// credentials (Authorization, x-api-key, cookies), the body (parsed when it
// is JSON), the status zest answered, the start of its answer and when it
// started.
import http from 'node:http';

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization']);

// Starts a proxy in front of `target` (zest's URL, "http://127.0.0.1:PORT").
export async function startRecordingProxy(target) {
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
      requests.push(record);
      const forward = http.request({
        host: upstream.hostname, port: upstream.port, method: req.method, path: req.url,
        headers: { ...req.headers, host: upstream.host },
      }, (answer) => {
        record.status = answer.statusCode;
        record.answer = '';
        answer.on('data', (c) => {  // its first 64 KiB, for a failing test's message
          if (record.answer.length < 65536) record.answer += c.toString('utf8');
        });
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);  // streams (SSE) pass through as they come
      });
      forward.on('error', (e) => {
        record.status = 502;
        record.error = e.message;
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`recording proxy: ${e.message}`);
      });
      forward.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
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
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(resolve);
    }),
  };
}

function parseBody(bytes) {
  if (bytes.length === 0) return null;
  const text = bytes.toString('utf8');
  try { return JSON.parse(text); } catch { return text; }
}
