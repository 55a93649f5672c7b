// A fake Hugging Face hub for tests and benchmarks: real sockets, real
// files, the hub's URL layout.
//   GET /api/models/{org}/{name}/revision/{rev}        {"id","sha"}
//   GET /api/models/{org}/{name}/tree/{rev}?recursive   [{type,path,size,oid,lfs:{oid,size}}]
//   GET /{org}/{name}/resolve/{rev}/{path}              302 → /cdn/{org}/{name}/{sha256}
//                                                       (X-Repo-Commit, like the hub)
//   GET /cdn/{org}/{name}/{sha256}                      the bytes, with Range support
// Options: a token (requests without "Authorization: Bearer TOKEN" get 401),
// `noRevisionApi` (the revision API answers 404, as on mirrors without it:
// the commit then comes from X-Repo-Commit; settable on the hub later),
// `pageSize` (the tree is listed that many entries a page, with the hub's
// `Link: <...&cursor=N>; rel="next"`; `nextPageOrigin` makes those links
// point at another server, as a hostile hub might),
// throttling, and per-file injected failures consumed one per
// download request: {drop: N} (close the connection after N bytes),
// {status: 500}, {status: 429, retryAfter: 1}, {corrupt: true} (same length,
// wrong bytes). Counts bytes served, per file and in total.
// Throttling, in bytes/s (0 = none), settable on the hub later:
//   `throttle` paces each connection on its own, so N connections get N
//     times the rate (a server that caps each connection);
//   `link` paces all connections together through one queue, as a network
//     link does: N connections share its rate.
// Both together are what a CDN in front of a home link looks like.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

export function sha256File(file) {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(8 << 20);
  let n;
  let pos = 0;
  while ((n = fs.readSync(fd, buf, 0, buf.length, pos)) > 0) { hash.update(buf.subarray(0, n)); pos += n; }
  fs.closeSync(fd);
  return hash.digest('hex');
}

// repos: { 'org/name': { files: { 'path/in/repo.gguf': '/abs/file' | Buffer } } }
export async function startFakeHub({ repos = {}, token = null, throttle = 0, link = 0, noRevisionApi = false } = {}) {
  const hub = new FakeHub(token, throttle);
  hub.link = link;
  hub.noRevisionApi = noRevisionApi;
  for (const [repo, spec] of Object.entries(repos)) hub.addRepo(repo, spec.files, spec.commit);
  await new Promise((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
  hub.url = `http://127.0.0.1:${hub.server.address().port}`;
  return hub;
}

class FakeHub {
  constructor(token, throttle) {
    this.token = token;
    this.throttle = throttle;       // bytes per second per connection, 0 = unlimited
    this.link = 0;                  // bytes per second over all connections, 0 = unlimited
    this.linkFreeAt = 0;            // performance.now() when the link's queue empties
    this.repos = new Map();
    this.failures = new Map();      // path → [failure, ...]
    this.treeOverride = new Map();  // repo → raw tree JSON (hostile hubs)
    this.bytesServed = 0;
    this.servedByPath = new Map();
    this.downloads = 0;             // CDN requests
    this.resolves = 0;              // resolve requests (X-Repo-Commit answers)
    this.noRevisionApi = false;
    this.sockets = new Set();
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => { this.sockets.add(s); s.on('close', () => this.sockets.delete(s)); });
  }

  addRepo(repo, files, commit = crypto.createHash('sha1').update(repo).digest('hex')) {
    const entries = [];
    for (const [path, source] of Object.entries(files)) {
      const isBuffer = Buffer.isBuffer(source);
      const size = isBuffer ? source.length : fs.statSync(source).size;
      const sha256 = isBuffer ? crypto.createHash('sha256').update(source).digest('hex') : sha256File(source);
      entries.push({ path, source, size, sha256 });
    }
    this.repos.set(repo, { commit, files: entries });
    return this.repos.get(repo);
  }

  file(repo, path) { return this.repos.get(repo)?.files.find((f) => f.path === path); }
  fail(path, ...failures) { this.failures.set(path, [...(this.failures.get(path) ?? []), ...failures]); }
  served(path) { return this.servedByPath.get(path) ?? 0; }
  resetCounters() { this.bytesServed = 0; this.servedByPath.clear(); this.downloads = 0; this.resolves = 0; }

  async close() {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  handle(req, res) {
    const url = new URL(req.url, 'http://x');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (this.token && req.headers.authorization !== `Bearer ${this.token}`) {
      return this.json(res, 401, { error: 'Invalid credentials in Authorization header' });
    }
    if (parts[0] === 'api' && parts[1] === 'models') return this.api(res, parts.slice(2), url);
    if (parts[0] === 'cdn') return this.cdn(req, res, parts.slice(1));
    if (parts[2] === 'resolve') return this.resolve(res, parts);
    this.json(res, 404, { error: 'not found' });
  }

  api(res, [org, name, kind, rev], url) {
    const repo = this.repos.get(`${org}/${name}`);
    if (!repo) return this.json(res, 404, { error: 'Repository not found' });
    if (kind === 'revision') {
      if (this.noRevisionApi) return this.json(res, 404, { error: 'Not Found' });
      return this.json(res, 200, { id: `${org}/${name}`, sha: repo.commit });
    }
    if (kind !== 'tree' || (rev !== 'main' && rev !== repo.commit)) return this.json(res, 404, { error: 'Revision not found' });
    const override = this.treeOverride.get(`${org}/${name}`);
    if (override) return this.json(res, 200, override);
    const tree = [];
    const dirs = new Set();
    for (const f of repo.files) {
      const segs = f.path.split('/');
      for (let i = 1; i < segs.length; ++i) dirs.add(segs.slice(0, i).join('/'));
      tree.push({ type: 'file', path: f.path, size: f.size, oid: crypto.createHash('sha1').update(f.path).digest('hex'),
        lfs: { oid: f.sha256, size: f.size, pointerSize: 134 } });
    }
    for (const d of dirs) tree.unshift({ type: 'directory', path: d, size: 0, oid: '0'.repeat(40) });
    if (!this.pageSize) return this.json(res, 200, tree);
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const headers = {};
    if (from + this.pageSize < tree.length) {
      const next = new URL(url.pathname, this.nextPageOrigin ?? this.url);
      next.search = url.search;
      next.searchParams.set('cursor', String(from + this.pageSize));
      headers.Link = `<${next}>; rel="next"`;
    }
    this.json(res, 200, tree.slice(from, from + this.pageSize), headers);
  }

  resolve(res, parts) {
    const [org, name, , rev, ...rest] = parts;
    const repo = this.repos.get(`${org}/${name}`);
    const file = repo && this.file(`${org}/${name}`, rest.join('/'));
    if (!file || (rev !== 'main' && rev !== repo.commit)) return this.json(res, 404, { error: 'Entry not found' });
    this.resolves++;
    res.writeHead(302, { Location: `/cdn/${org}/${name}/${file.sha256}?path=${encodeURIComponent(file.path)}`,
      'X-Repo-Commit': repo.commit, 'Content-Length': 0 });
    res.end();
  }

  cdn(req, res, [org, name, sha]) {
    const repo = this.repos.get(`${org}/${name}`);
    const file = repo?.files.find((f) => f.sha256 === sha);
    if (!file) return this.json(res, 404, { error: 'no such blob' });
    this.downloads++;
    const failure = (this.failures.get(file.path) ?? []).shift();
    if (failure?.status) {
      const headers = failure.retryAfter !== undefined ? { 'Retry-After': String(failure.retryAfter) } : {};
      return this.json(res, failure.status, { error: `injected ${failure.status}` }, headers);
    }
    let start = 0;
    let end = file.size - 1;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      start = Number(range[1]);
      if (range[2]) end = Math.min(end, Number(range[2]));
      if (start > end) { res.writeHead(416, { 'Content-Range': `bytes */${file.size}` }); return res.end(); }
      res.writeHead(206, { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${file.size}`,
        'Accept-Ranges': 'bytes' });
    } else {
      res.writeHead(200, { 'Content-Length': file.size, 'Accept-Ranges': 'bytes' });
    }
    this.stream(req, res, file, start, end, failure);
  }

  // With a link, the milliseconds until a chunk of `n` bytes may leave:
  // it books time on its connection (at `throttle`, if set; `own` holds when
  // that connection's bookings end) and on the link, behind what the other
  // connections booked there, and leaves when both bookings end. So N
  // connections share the link's rate, and timer slack does not add up.
  // Like a token bucket, time left unbooked in the last `burstMs` (a
  // sender busy writing its last chunk out) may still be booked: a link
  // carries what its senders queued, while they catch up.
  linkWait(n, own, burstMs = 50) {
    const now = performance.now();
    const book = (freeAt, rate) => Math.max(now - burstMs, freeAt) + (rate ? (n / rate) * 1000 : 0);
    this.linkFreeAt = book(this.linkFreeAt, this.link);
    own.freeAt = book(own.freeAt, this.throttle);
    return Math.max(0, this.linkFreeAt - now, own.freeAt - now);
  }

  stream(req, res, file, start, end, failure) {
    // Throttled, in pieces of 1/20 s, so progress shows even for small files.
    const rate = Math.min(this.throttle || Infinity, this.link || Infinity);
    const chunk = rate < Infinity ? Math.max(4096, Math.min(1 << 20, Math.floor(rate / 20))) : 1 << 20;
    let pos = start;
    let sent = 0;
    const own = { freeAt: 0 };
    const fd = Buffer.isBuffer(file.source) ? null : fs.openSync(file.source, 'r');
    let closed = fd === null;
    const done = () => { if (!closed) { closed = true; fs.closeSync(fd); } };
    const step = () => {
      if (res.destroyed) return done();
      if (pos > end) { done(); return res.end(); }
      let n = Math.min(chunk, end - pos + 1);
      if (failure?.drop !== undefined) n = Math.min(n, failure.drop - sent);
      if (n <= 0) { done(); return res.socket.destroy(); }  // injected connection drop
      if (this.link) setTimeout(() => send(n), this.linkWait(n, own));
      else send(n);
    };
    const send = (n) => {
      if (res.destroyed) return done();
      let buf;
      if (fd === null) buf = file.source.subarray(pos, pos + n);
      else { buf = Buffer.allocUnsafe(n); fs.readSync(fd, buf, 0, n, pos); }
      if (failure?.corrupt) buf = Buffer.from(buf.map((b) => b ^ 0xff));
      pos += n;
      sent += n;
      this.bytesServed += n;
      this.servedByPath.set(file.path, this.served(file.path) + n);
      const more = res.write(buf);
      // Without a link, each connection sleeps its own pace after a chunk.
      const delay = !this.link && this.throttle ? (n / this.throttle) * 1000 : 0;
      const next = () => (delay ? setTimeout(step, delay) : setImmediate(step));
      if (more) next();
      else res.once('drain', next);
    };
    res.on('close', done);
    step();
  }

  json(res, status, body, headers = {}) {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
}
