// zest as a systemd service (packaging/debian/zest.service), checked here
// without systemd running as PID 1 (this machine has none):
//  - the notify protocol: a stand-in for systemd's notify socket (a UNIX
//    datagram socket, read by python3: node has no UNIX datagrams) gets
//    READY=1 once zest listens, RELOADING=1 then READY=1 on SIGHUP,
//    STOPPING=1 on SIGTERM; no engine inherits NOTIFY_SOCKET;
//  - the unit: `systemd-analyze verify` finds nothing wrong, and
//    `systemd-analyze security --offline` scores its exposure (the figure is
//    printed; docs/operations.md quotes it);
//  - NoNewPrivileges=true: zest run under `setpriv --no-new-privs` still
//    starts its engines inside bubblewrap and answers a chat.
// What stays unchecked here (systemd's own mount and namespace settings
// around a running unit) is listed in packaging/debian/README.md.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { chatBody, descendants, makeHome, repo, startZest, waitFor, zestBin } from '../lib/zest.mjs';

const has = (tool) => {
  try { execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }); return true; } catch { return false; }
};
const unit = path.join(repo, 'packaging/debian/zest.service');

// A stand-in for systemd's notify socket; `states` collects each datagram.
function notifySocket(dir) {
  const socket = path.join(dir, 'notify');
  const reader = spawn('python3', ['-u', '-c', `
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("bound", flush=True)
while True:
    print(json.dumps(s.recv(4096).decode()), flush=True)
`, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  const states = [];
  let bound;
  const ready = new Promise((resolve) => { bound = resolve; });
  let buffer = '';
  reader.stdout.on('data', (d) => {
    buffer += d.toString();
    let end;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line === 'bound') bound(); else states.push(JSON.parse(line));
    }
  });
  return { socket, states, ready, close: () => reader.kill() };
}

describe('systemd notify protocol', { skip: needs(has('python3'), 'python3') }, () => {
  test('READY once listening, RELOADING and READY on SIGHUP, STOPPING on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-notify-'));
    const systemd = notifySocket(dir);
    await systemd.ready;
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { NOTIFY_SOCKET: systemd.socket } });
    try {
      await waitFor(() => systemd.states.length >= 1, { timeout: 10000, what: 'READY=1' });
      assert.match(systemd.states[0], /^READY=1\nSTATUS=listening on 127\.0\.0\.1:\d+$/);
      // An engine started by zest does not get the socket.
      assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
      const engine = descendants(zest.pid).find((p) => p.comm === 'llama-server');
      assert.ok(engine, 'no engine running');
      assert.doesNotMatch(fs.readFileSync(`/proc/${engine.pid}/environ`, 'latin1'), /NOTIFY_SOCKET/);
      process.kill(zest.pid, 'SIGHUP');
      await waitFor(() => systemd.states.length >= 3, { timeout: 10000, what: 'the reload notices' });
      assert.match(systemd.states[1], /^RELOADING=1\nMONOTONIC_USEC=\d+$/);
      assert.match(systemd.states[2], /^READY=1\n/);
      await zest.stop();
      await waitFor(() => systemd.states.length >= 4, { timeout: 10000, what: 'STOPPING=1' });
      assert.match(systemd.states[3], /^STOPPING=1\n/);
    } finally { await zest.stop(); zest.cleanup(); systemd.close(); fs.rmSync(dir, { recursive: true, force: true }); }
  });
});

describe('the unit file', { skip: needs(has('systemd-analyze'), 'systemd-analyze') }, () => {
  test('systemd-analyze verifies it and scores its exposure', () => {
    // The unit names /usr/bin/zest, which only the package installs: the
    // check runs on a copy naming this build's zest.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-unit-'));
    try {
      const copy = path.join(dir, 'zest.service');
      fs.writeFileSync(copy, fs.readFileSync(unit, 'utf8').replaceAll('/usr/bin/zest', zestBin));
      execFileSync('systemd-analyze', ['verify', '--man=no', copy], { stdio: 'pipe' });
      const report = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', copy]).toString();
      const score = Number(/Overall exposure level for zest\.service: ([\d.]+)/.exec(report)?.[1]);
      console.log(`zest.service exposure (systemd-analyze security --offline): ${score}`);
      assert.ok(score > 0 && score <= 5.0, `exposure ${score}:\n${report}`);
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });

  test('under NoNewPrivileges the engines still start in bubblewrap', { skip: needs(has('setpriv'), 'setpriv') }, async () => {
    assert.match(fs.readFileSync(unit, 'utf8'), /^NoNewPrivileges=true$/m);
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), prefix: ['setpriv', '--no-new-privs'] });
    try {
      const chat = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(chat.status, 200, JSON.stringify(chat.data));
      const status = fs.readFileSync(`/proc/${zest.pid}/status`, 'utf8');
      assert.match(status, /^NoNewPrivs:\s+1$/m);
      assert.ok(descendants(zest.pid).some((p) => p.comm === 'bwrap'), 'the engine is not in bubblewrap');
    } finally { await zest.stop(); zest.cleanup(); }
  });
});
