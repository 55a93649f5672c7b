// TLS: `zest cert` makes a local CA and a server certificate; zest serves
// HTTPS with them (TLS 1.2+, forward-secret AEAD ciphers only); the official
// openai client trusts the CA through NODE_EXTRA_CA_CERTS; SIGHUP reloads
// the certificate without dropping open connections.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import crypto from 'node:crypto';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { exchange } from '../lib/raw_http.mjs';
import { makeHome, repo, startZest, waitFor, zestBin } from '../lib/zest.mjs';

function cli(home, args) {
  return execFileSync(zestBin, args, { env: { ...process.env, ZEST_HOME: home }, encoding: 'utf8' });
}

// GET over `agent`; resolves {status, body, socket} (the socket's local port
// tells whether a connection was reused).
function get(url, agent, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { agent, headers }, (res) => {
      let body = '';
      const port = res.socket.localPort;
      const serial = res.socket.getPeerCertificate().serialNumber;
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body, port, serial }));
    });
    req.on('error', reject);
  });
}

function handshake(url, options) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = tls.connect({ host: u.hostname, port: Number(u.port), servername: 'localhost', ...options }, () => {
      const info = { ok: true, protocol: s.getProtocol(), cipher: s.getCipher().name };
      s.end();
      resolve(info);
    });
    s.on('error', (e) => resolve({ ok: false, error: e.code ?? e.message }));
  });
}

describe('TLS', () => {
  let zest, home, ca, key, ollamaPort;
  before(async () => {
    ollamaPort = await freePort();  // the Ollama listener speaks TLS too
    home = makeHome({ tiny: 'tiny' });
    const out = cli(home, ['cert']);
    assert.match(out, /Created local CA/);
    assert.match(out, /NODE_EXTRA_CA_CERTS=/);
    ca = path.join(home, 'tls', 'ca.pem');
    key = cli(home, ['keys', 'add', 'tls-client']).trim();
    zest = await startZest({
      home,
      args: ['--tls-cert', path.join(home, 'tls', 'server.pem'), '--tls-key', path.join(home, 'tls', 'server-key.pem')],
      env: { ZEST_OLLAMA_LISTEN: `127.0.0.1:${ollamaPort}` },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('zest cert writes private keys 0600 in a 0700 directory and reuses its CA', () => {
    const dir = path.join(home, 'tls');
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(dir, 'ca-key.pem')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(dir, 'server-key.pem')).mode & 0o777, 0o600);
    const cert = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'server.pem')));
    assert.match(cert.subjectAltName, /DNS:localhost/);
    assert.match(cert.subjectAltName, /IP Address:127\.0\.0\.1/);
    assert.ok(cert.verify(new crypto.X509Certificate(fs.readFileSync(ca)).publicKey));
  });

  test('the official openai client talks TLS to zest trusting the generated CA', async () => {
    assert.match(zest.url, /^https:\/\/127\.0\.0\.1:/);
    const port = new URL(zest.url).port;
    const out = execFileSync(process.execPath, [path.join(repo, 'tests/lib/openai_tls_client.mjs'),
      `https://localhost:${port}/v1`, key, 'tiny'], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, encoding: 'utf8', cwd: path.join(repo, 'tests'),
    });
    const result = JSON.parse(out);
    assert.ok(result.models.includes('tiny'));
    assert.equal(typeof result.content, 'string');
  });

  test('without trusting the CA the client refuses the certificate', async () => {
    const r = await handshake(zest.url, {});
    assert.equal(r.ok, false);
    assert.match(String(r.error), /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
  });

  test('TLS 1.2 gets a forward-secret AEAD cipher; legacy CBC suites are refused', async () => {
    const r12 = await handshake(zest.url, { ca: fs.readFileSync(ca), maxVersion: 'TLSv1.2' });
    assert.equal(r12.ok, true, r12.error);
    assert.equal(r12.protocol, 'TLSv1.2');
    assert.match(r12.cipher, /^ECDHE-(ECDSA|RSA)-(AES\d+-GCM|CHACHA20-POLY1305)/);
    const r13 = await handshake(zest.url, { ca: fs.readFileSync(ca) });
    assert.equal(r13.protocol, 'TLSv1.3');
    const cbc = await handshake(zest.url, { ca: fs.readFileSync(ca), maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA:AES128-SHA' });
    assert.equal(cbc.ok, false);
  });

  test('plain HTTP on the TLS port is told to use https, and zest keeps serving', async () => {
    const port = new URL(zest.url).port;
    const r = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(r.status, 400);
    assert.match(await r.text(), /This port speaks HTTPS/);
    const agent = new https.Agent({ ca: fs.readFileSync(ca) });
    assert.equal((await get(`https://localhost:${port}/health`, agent)).status, 200);
  });

  test('SIGHUP reloads the certificate; open connections stay up', async () => {
    const port = new URL(zest.url).port;
    const agent = new https.Agent({ ca: fs.readFileSync(ca), keepAlive: true, maxSockets: 1 });
    const before = await get(`https://localhost:${port}/v1/models`, agent, { authorization: `Bearer ${key}` });
    assert.equal(before.status, 200);
    cli(home, ['cert', '--name', 'zest.test']);
    process.kill(zest.pid, 'SIGHUP');
    // Both listeners: the gateway and the Ollama one.
    await waitFor(() => (zest.logs().match(/TLS certificate reloaded/g) ?? []).length >= 2, { what: 'reload logs' });
    const same = await get(`https://localhost:${port}/v1/models`, agent, { authorization: `Bearer ${key}` });
    assert.equal(same.status, 200);
    assert.equal(same.port, before.port, 'the kept-alive connection survived the reload');
    assert.equal(same.serial, before.serial);
    const fresh = await get(`https://localhost:${port}/health`, new https.Agent({ ca: fs.readFileSync(ca) }));
    assert.equal(fresh.status, 200);
    assert.notEqual(fresh.serial, before.serial, 'new connections get the new certificate');
    const ollama = await get(`https://localhost:${ollamaPort}/`, new https.Agent({ ca: fs.readFileSync(ca) }));
    assert.equal(ollama.status, 200);
    assert.equal(ollama.body, 'Ollama is running');
    assert.equal(ollama.serial, fresh.serial, 'the Ollama listener has the new certificate too');
    agent.destroy();
    // A broken certificate on reload keeps the old one in service.
    fs.writeFileSync(path.join(home, 'tls', 'server.pem'), 'not a certificate');
    process.kill(zest.pid, 'SIGHUP');
    await waitFor(() => /keeping the old TLS certificate/.test(zest.logs()), { what: 'reload error' });
    const still = await get(`https://localhost:${port}/health`, new https.Agent({ ca: fs.readFileSync(ca) }));
    assert.equal(still.status, 200);
    assert.equal(still.serial, fresh.serial);
  });
});

describe('TLS misconfiguration', () => {
  test('a missing or mismatched certificate stops zest at start with a clear error', async () => {
    const home = makeHome({});
    try {
      cli(home, ['cert']);
      const run = (args) => new Promise((resolve) => {
        const p = spawn(zestBin, ['serve', '--port', '0', ...args], { env: { ...process.env, ZEST_HOME: home } });
        let out = '';
        p.stderr.on('data', (d) => { out += d; });
        p.stdout.on('data', (d) => { out += d; });
        p.on('exit', (code) => resolve({ code, out }));
      });
      let r = await run(['--tls-cert', path.join(home, 'tls', 'server.pem')]);
      assert.notEqual(r.code, 0);
      assert.match(r.out, /needs both a certificate/);
      r = await run(['--tls-cert', path.join(home, 'tls', 'server.pem'), '--tls-key', path.join(home, 'tls', 'ca-key.pem')]);
      assert.notEqual(r.code, 0);
      assert.match(r.out, /cannot use TLS key .*ca-key\.pem.*mismatch|does not match certificate/);
    } finally { fs.rmSync(home, { recursive: true, force: true }); }
  });
});

// A port free at the moment (the redirect listener needs a fixed one).
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

describe('HTTP to HTTPS redirect', () => {
  let zest, home, ca, plain;
  before(async () => {
    home = makeHome({ tiny: 'tiny' });
    cli(home, ['cert']);
    cli(home, ['keys', 'add', 'someone']);  // keys on: the redirect must still need none
    ca = fs.readFileSync(path.join(home, 'tls', 'ca.pem'));
    const port = await freePort();
    zest = await startZest({
      home,
      args: ['--tls-cert', path.join(home, 'tls', 'server.pem'), '--tls-key', path.join(home, 'tls', 'server-key.pem'),
        '--https-redirect-port', String(port)],
    });
    plain = `http://127.0.0.1:${port}`;
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('every plain request gets 308 to the same target over HTTPS, with no key and the connection closed', async () => {
    const tlsPort = new URL(zest.url).port;
    for (const [method, target] of [['GET', '/v1/models?limit=2'], ['POST', '/v1/chat/completions'], ['DELETE', '/nowhere']]) {
      const r = await exchange(plain, [`${method} ${target} HTTP/1.1\r\nHost: localhost:${new URL(plain).port}\r\n\r\n`]);
      assert.equal(r.status, 308, r.received);
      assert.match(r.received, new RegExp(`\r\nLocation: https://localhost:${tlsPort}${target.replace('?', '\\?')}\r\n`, 'i'));
      assert.match(r.received, /\r\nConnection: close\r\n/i);
    }
    assert.match(zest.logs(), /redirecting http:\/\/127\.0\.0\.1:\d+ to HTTPS/);
  });

  test('a request body is never read: a huge declared body still gets its 308 at once', async () => {
    const t0 = Date.now();
    const r = await exchange(plain, ['POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      'Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"model":'], { timeout: 5000 });
    assert.equal(r.status, 308, r.received);
    assert.ok(Date.now() - t0 < 4000, 'answered without waiting for the body');
  });

  test('a Host that is not an allowed name is refused, never echoed into Location', async () => {
    for (const host of ['evil.example/x?', 'rebind.attacker.example']) {
      const r = await exchange(plain, [`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`]);
      assert.equal(r.status, 421, r.received);
      assert.doesNotMatch(r.received, /Location:/i);
    }
  });

  test('following the redirect reaches zest over TLS', async () => {
    const r = await fetch(`${plain}/health`, { redirect: 'manual' });
    assert.equal(r.status, 308);
    const target = r.headers.get('location').replace('127.0.0.1', 'localhost');
    const ok = await get(target, new https.Agent({ ca }));
    assert.equal(ok.status, 200);
  });

  test('a redirect port without TLS is a start-up error', async () => {
    const bare = makeHome({});
    try {
      const p = spawn(zestBin, ['serve', '--port', '0', '--https-redirect-port', String(await freePort())],
        { env: { ...process.env, ZEST_HOME: bare } });
      let out = '';
      p.stderr.on('data', (d) => { out += d; });
      p.stdout.on('data', (d) => { out += d; });
      const code = await new Promise((resolve) => p.on('exit', resolve));
      assert.notEqual(code, 0);
      assert.match(out, /https_redirect_port needs TLS/);
    } finally { fs.rmSync(bare, { recursive: true, force: true }); }
  });
});
