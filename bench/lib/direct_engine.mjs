// llama-server started by hand with the command line zest gave its own
// engine (on TCP instead of zest's Unix socket), for the benchmarks that
// compare zest with the engine alone. One engine at a time: the caller
// unloads zest's first, so the two never compete for the CPU.
import { spawn } from 'node:child_process';
import { argvOnTcp, waitFor } from '../../tests/lib/zest.mjs';

// Starts the engine of `argv` on a random port, waits until its /health
// answers 200 (polled every `interval` ms, for at most `timeout` ms), runs
// `use(url)` and resolves to its result; the engine is stopped, and waited
// for, however `use` ends.
export async function withDirectEngine(argv, use, { timeout = 120000, interval = 50 } = {}) {
  const port = 21000 + Math.floor(Math.random() * 5000);
  const cmd = argvOnTcp(argv, port);
  const proc = spawn(cmd[0], cmd.slice(1), { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      try { return (await fetch(`${url}/health`)).status === 200; } catch { return false; }
    }, { timeout, interval, what: 'the direct llama-server' });
    return await use(url);
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
}
