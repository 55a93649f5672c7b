// Raw TCP helpers for tests that must send what fetch() will not: huge
// headers, lying Content-Lengths, bytes dribbled out slowly, idle sockets.
import net from 'node:net';

export function hostPort(url) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

// Opens a socket; resolves once connected.
export function connect(url) {
  const { host, port } = hostPort(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

// Writes `chunks` (strings or Buffers) and collects what the server sends
// until it closes the connection (or `timeout` ms pass: `timedOut`). Write
// errors (the server closed while we were still sending) are recorded, not
// thrown.
export async function exchange(url, chunks, { timeout = 10000 } = {}) {
  const socket = await connect(url);
  let received = '';
  let writeError = null;
  socket.on('data', (d) => { received += d.toString('latin1'); });
  socket.on('error', (e) => { writeError = e; });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    if (!socket.write(chunk)) await new Promise((r) => { socket.once('drain', r); socket.once('close', r); });
  }
  let timedOut = false;  // we closed it: the server kept it open
  const timer = setTimeout(() => { timedOut = true; socket.destroy(); }, timeout);
  await closed;
  clearTimeout(timer);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
  return { received, status, body: received.slice(received.indexOf('\r\n\r\n') + 4), writeError, timedOut };
}

// GET /health latency in ms over a fresh connection.
export async function healthLatency(url) {
  const start = performance.now();
  const res = await fetch(`${url}/health`, { headers: { connection: 'close' } });
  await res.text();
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  return performance.now() - start;
}

// Probes /health every `interval` ms while `during` runs; returns the
// latencies (and rethrows a probe failure). `during` gets `probes(n)`, which
// resolves once n more probes have answered: a test waits on probes made in
// the state it built, not on a sleep.
export async function probeWhile(url, during, { interval = 50 } = {}) {
  const latencies = [];
  const waiters = [];
  let done = false;
  let failure = null;
  const wake = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (failure || latencies.length >= waiters[i].count) waiters.splice(i, 1)[0].resolve();
    }
  };
  const probes = (n) => new Promise((resolve) => {
    waiters.push({ count: latencies.length + n, resolve });
    wake();
  });
  await healthLatency(url);  // warm-up: fetch's first call loads undici
  const prober = (async () => {
    while (!done) {
      try { latencies.push(await healthLatency(url)); } catch (e) { failure = e; done = true; }
      wake();
      await new Promise((r) => setTimeout(r, interval));
    }
  })();
  try { await during(probes); } finally { done = true; await prober; }
  if (failure) throw failure;
  return latencies;
}
