// llama-server's own router mode (`--models-dir DIR --models-max N`), the
// nearest peer to zest's model scheduling, started from an engine command
// line zest built: the same binary, sandbox and flags, with the model
// switched for the directory. Its engines run with the engine's default
// threads and prompt cache: the router has no budget to share, what zest
// sets there is zest's own choice.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { freePort } from '../../tests/lib/prometheus.mjs';
import { waitFor } from '../../tests/lib/zest.mjs';

// Starts the router on a free TCP port; resolves once /v1/models
// answers. `engineArgv`: a zest engine's argv (tests/lib/zest.mjs
// engineArgv); `ctx`: tokens per slot. Returns {url, logs(), stop()}.
export async function startRouter(engineArgv, { modelsDir, modelsMax, parallel, ctx, extra = [] }) {
  const port = await freePort();
  const sep = engineArgv.indexOf('--');
  // zest's run directory may be gone with zest: binds of paths that no
  // longer exist are dropped.
  const prefix = [];
  for (let i = 0; sep >= 0 && i < sep; ++i) {
    const a = engineArgv[i];
    if ((a === '--bind' || a === '--ro-bind') && !fs.existsSync(engineArgv[i + 1])) { i += 2; continue; }
    if (a === '--unshare-net') continue;  // the router listens on TCP for the benchmark
    prefix.push(a);
  }
  const binary = sep >= 0 ? engineArgv[sep + 1] : engineArgv[0];
  if (sep >= 0) prefix.push('--ro-bind', modelsDir, modelsDir, '--');
  const argv = [...prefix, binary, '--models-dir', modelsDir, '--models-max', String(modelsMax),
    '--host', '127.0.0.1', '--port', String(port), '-c', String(ctx * parallel),
    '--parallel', String(parallel), '--jinja', ...extra];
  const proc = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise((r) => proc.once('exit', r));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(async () => {
      try { return (await fetch(`${url}/v1/models`)).ok; } catch { return false; }
    }, { timeout: 30000, what: 'the router' });
  } catch (err) {
    await stop();
    throw new Error(`${err.message}; it said:\n${log.slice(-2000)}`);
  }
  return { url, logs: () => log, stop,
    // Engines the router started, from its log.
    loads: () => (log.match(/spawning server instance with name=/g) ?? []).length };
}
