// The first process inside an agent's sandbox (lib/sandbox.mjs): listens on
// 127.0.0.1:PORT, in the sandbox's own network namespace (where loopback is
// all there is), and passes each connection through to the recording
// proxy's UNIX socket SOCKET, bound in from outside; then runs the client
// (ARGV...) with this process's stdio and environment, and exits as it
// exits. So the client talks to zest over TCP as it would anywhere, and can
// reach nothing else.
//   node loopback_gate.mjs PORT SOCKET ARGV...
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';

const [port, socket, ...argv] = process.argv.slice(2);

const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream);
  upstream.pipe(client);
  // Either side closing or failing ends both: the client sees a dropped
  // connection, as it would from zest.
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});

server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit' });
  child.on('error', (e) => {
    process.stderr.write(`loopback_gate: cannot run ${argv[0]}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
