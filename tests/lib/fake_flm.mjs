// A FAKE FastFlowLM (`flm`) for machines without an NPU. FastFlowLM needs an
// AMD XDNA2 NPU, which no test machine has; this stand-in keeps everything
// else real. `flm serve TAG --ctx-len N --port P --host H` runs the REAL
// llama-server (the command line another zest used, captured from /proc)
// on that TCP port with TAG as its model name, so zest's side (placement,
// the namespace, the bridge, the relay, supervision) runs for real. Each
// call is appended to calls.jsonl beside the script.
import fs from 'node:fs';
import path from 'node:path';

// `engineArgv`: a llama-server command line (bwrap's, when zest runs it in
// the rootfs), as zest started it.
export function writeFakeFlm(dir, engineArgv) {
  const script = path.join(dir, 'flm');
  const calls = path.join(dir, 'calls.jsonl');
  fs.writeFileSync(script, `#!${process.execPath}
// FAKE FastFlowLM, written by tests/lib/fake_flm.mjs.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify(args) + '\\n');
if (args[0] === 'version') { console.log('FAKE flm 0.0.0'); process.exit(0); }
if (args[0] !== 'serve') { console.error('FAKE flm: only serve and version'); process.exit(2); }
const option = (name) => args[args.indexOf(name) + 1];
const argv = ${JSON.stringify(engineArgv)};
// FastFlowLM runs in the network namespace zest made for it: the engine
// standing in for it must not make one of its own, and the donor's socket
// directory (gone with its engine) is not needed on TCP.
for (let i = argv.length - 1; i >= 0; i--) {
  if (argv[i] === '--unshare-net') argv.splice(i, 1);
  else if (argv[i] === '--bind' && !fs.existsSync(argv[i + 1])) argv.splice(i, 3);
}
argv[argv.indexOf('--alias') + 1] = args[1];
const host = argv.indexOf('--host');
argv.splice(host + 1, 1, option('--host'), '--port', option('--port'));
console.log('FAKE flm: serving ' + args[1] + ' on ' + option('--host') + ':' + option('--port'));
const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit' });
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? 128));
`, { mode: 0o755 });
  return { script, calls: () => fs.readFileSync(calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) };
}
