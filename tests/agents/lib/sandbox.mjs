// The sandbox each coding agent runs in (bubblewrap). The clients run with
// their own auto-approval on (that is how agents run headless: Qwen Code's
// yolo, Continue's --auto, Codex's approval_policy never, opencode's
// default permissions), so the sandbox, not the client, bounds what a tool
// call can do:
//  - the real root read-only, but /home, /root and /run (other users' files,
//    credentials, the host's sockets), each an empty tmpfs; /dev, /proc;
//  - writable only: a tmpfs /tmp, the scratch project at SCRATCH and the
//    client's empty HOME at AGENT_HOME (both bound from the test's own
//    directories: fixed paths, so the synthetic model can write the file's
//    path as a constant, src/tools/file_reader_weights.h);
//  - a network namespace of its own, in which only loopback exists: the
//    client reaches zest at AGENT_URL, where loopback_gate.mjs (started
//    first inside the sandbox) passes each connection to the recording
//    proxy's UNIX socket, bound in under /run. Nothing else on the
//    network is reachable, this machine's other ports included;
//  - its own user namespace (root inside maps to the user who runs the test;
//    its capabilities reach only the sandbox's own namespaces, and no mount
//    it was given can be made writable), its own PID namespace, a new session
//    (no terminal to push keys into), and it dies with the test.
// Codex runs its commands in a bubblewrap sandbox of its own; the user
// namespace is what lets it nest one here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zestBin } from '../../lib/zest.mjs';

export const SCRATCH = '/scratch';
export const AGENT_HOME = '/home/agent';
// zest's default port, inside the sandbox's own network namespace.
export const AGENT_PORT = 9378;
export const AGENT_URL = `http://127.0.0.1:${AGENT_PORT}`;
const GATE_DIR = '/run/zest-gate';

const gate = path.join(path.dirname(fileURLToPath(import.meta.url)), 'loopback_gate.mjs');
const agentsDir = path.resolve(path.dirname(gate), '..');

// What takes the place of the real root's entries of these names.
const REPLACED = new Map([
  ['dev', ['--dev', '/dev']],
  ['proc', ['--proc', '/proc']],
  ['tmp', ['--tmpfs', '/tmp']],
  ['home', ['--tmpfs', '/home']],
  ['root', ['--tmpfs', '/root']],
  ['run', ['--tmpfs', '/run']],
]);

// The bubblewrap command line that runs `argv` (paths as the sandbox sees
// them) in SCRATCH, with `work` (the scratch project) at SCRATCH, `home` at
// AGENT_HOME and the directory of the proxy's socket `socket` at GATE_DIR.
export function sandboxed(argv, { work, home, socket }) {
  const args = ['bwrap'];
  for (const entry of fs.readdirSync('/', { withFileTypes: true })) {
    const at = `/${entry.name}`;
    if (REPLACED.has(entry.name)) args.push(...REPLACED.get(entry.name));
    else if (entry.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(at), at);
    else args.push('--ro-bind', at, at);
  }
  // The clients and this gate, wherever the checkout is (under /home or
  // /root too), the node that runs the gate, and zest (`zest launch`).
  args.push('--ro-bind', agentsDir, agentsDir, '--ro-bind', process.execPath, process.execPath,
    '--ro-bind', zestBin, zestBin);
  args.push('--bind', work, SCRATCH, '--bind', home, AGENT_HOME,
    '--bind', path.dirname(socket), GATE_DIR, '--remount-ro', '/');
  args.push('--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts',
    '--hostname', 'sandbox', '--die-with-parent', '--new-session', '--chdir', SCRATCH,
    '--setenv', 'HOME', AGENT_HOME, '--');
  return [...args, process.execPath, gate, String(AGENT_PORT), `${GATE_DIR}/${path.basename(socket)}`, ...argv];
}
