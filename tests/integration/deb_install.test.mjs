// The package installed the way a user installs it: `apt-get install
// ./zest_*.deb` into a fresh Debian 12 root (debootstrap minbase, made once
// by scripts/debian-root.sh and copied for each run), apt resolving every
// dependency from the package's own metadata; then zest started as its
// unit starts it (ExecStart as the zest user, with the unit's
// environment), a chat answered on a synthetic model, and `apt-get purge`
// leaving neither state nor config. The root is entered with bubblewrap
// (pivot_root, so zest can still make its engines' namespaces, which a
// chroot forbids), sharing this machine's network for apt. The engines are
// this machine's provisioned root filesystem, bound in read-only: what the
// package's own provisioning will do is not tested here. Needs root.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { chatBody, descendants, makeHome, repo, startZest, waitFor, zestBin } from '../lib/zest.mjs';

const engines = '/var/cache/zest/engines';
const root = process.getuid?.() === 0;
const have = (tool) => { try { execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }); return true; } catch { return false; } };
const ready = have('debootstrap') && have('bwrap') && have('lintian') && fs.existsSync(engines);
// apt's downloads, kept between runs (ffmpeg brings ~150 packages).
const archives = '/var/cache/zest/test-roots/apt-archives';

describe('the package in a fresh Debian 12 root', { skip: root ? needs(ready, 'debootstrap, bwrap, lintian and the engines') : 'needs root' }, () => {
  let dir, fresh;
  // A command inside the root, as root (apt, dpkg).
  const inRoot = (script) => execFileSync('bwrap', ['--bind', fresh, '/', '--proc', '/proc', '--dev', '/dev',
    '--ro-bind', '/etc/resolv.conf', '/etc/resolv.conf', '--bind', archives, '/var/cache/apt/archives',
    '--die-with-parent', '--', '/bin/sh', '-c', script],
  { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', DEBIAN_FRONTEND: 'noninteractive', LANG: 'C' }, stdio: 'pipe' }).toString();
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-deb-install-'));
    const deb = execFileSync(path.join(repo, 'scripts/make-deb.sh'), [dir],
      { env: { ...process.env, BUILD_DIR: path.dirname(zestBin) } }).toString().trim();
    const base = execFileSync(path.join(repo, 'scripts/debian-root.sh')).toString().trim();
    fresh = path.join(dir, 'root');
    execFileSync('cp', ['-a', base, fresh]);
    fs.mkdirSync(archives, { recursive: true });
    // Where the engines are bound in (bubblewrap would make it 0700).
    fs.mkdirSync(path.join(fresh, engines), { recursive: true, mode: 0o755 });
    fs.copyFileSync(deb, path.join(fresh, 'root', path.basename(deb)));
    inRoot('apt-get update -qq');
  });
  after(() => { if (dir) execFileSync('rm', ['-rf', '--one-file-system', dir]); });

  test('apt installs it with its dependencies; it serves as its unit runs it; purge removes it', async (t) => {
    const started = Date.now();
    inRoot('apt-get install -y -qq --no-install-recommends /root/zest_*.deb');
    const installed = Date.now();
    // What postinst made.
    const passwd = fs.readFileSync(path.join(fresh, 'etc/passwd'), 'utf8');
    const user = /^zest:x:(\d+):(\d+):/m.exec(passwd);
    assert.ok(user, 'no zest user');
    const state = fs.statSync(path.join(fresh, 'var/lib/zest'));
    assert.equal(state.uid, Number(user[1]));
    assert.equal(state.mode & 0o777, 0o700);
    assert.ok(fs.existsSync(path.join(fresh, 'usr/bin/bwrap')), 'bubblewrap came with it');
    assert.ok(fs.existsSync(path.join(fresh, 'usr/bin/ffmpeg')), 'ffmpeg came with it');
    // The unit's ExecStart and Environment, as systemd would run them.
    const unit = fs.readFileSync(path.join(fresh, 'lib/systemd/system/zest.service'), 'utf8');
    const exec = /^ExecStart=(.*)$/m.exec(unit)[1].split(' ');
    const environment = [...unit.matchAll(/^Environment=(.*)$/gm)].map((m) => m[1]);
    assert.equal(/^User=(.*)$/m.exec(unit)[1], 'zest');
    // A synthetic model in the service's own store.
    const models = path.join(fresh, 'var/lib/zest/models');
    fs.mkdirSync(models, { recursive: true });
    fs.copyFileSync(path.join(makeHome({ tiny: 'tiny' }), 'models', 'tiny.gguf'), path.join(models, 'tiny.gguf'));
    for (const p of [models, path.join(models, 'tiny.gguf')]) fs.chownSync(p, Number(user[1]), Number(user[2]));
    const zest = await startZest({
      bin: exec[0],
      // This machine's /proc bound in, not a new one: a user namespace (the
      // engines' sandbox) may mount proc only where a proc is fully visible.
      prefix: ['bwrap', '--bind', fresh, '/', '--bind', '/proc', '/proc', '--dev', '/dev', '--ro-bind', engines, engines,
        '--die-with-parent', '--', 'setpriv', '--reuid', 'zest', '--regid', 'zest', '--clear-groups',
        // The environment systemd gives a unit with User=zest, and the unit's own.
        'env', '-i', 'PATH=/usr/bin:/bin', 'HOME=/var/lib/zest', 'USER=zest', 'LOGNAME=zest',
        ...environment, 'ZEST_DRAIN_TIMEOUT=5'],
      args: exec.slice(2),
    });
    // bubblewrap does not pass SIGTERM on, and setpriv's change of user
    // clears its die-with-parent: zest itself is stopped, as systemd would.
    const inner = descendants(zest.pid).find((p) => p.comm === 'zest');
    let answered;
    try {
      assert.ok(inner, 'zest is not running under bubblewrap');
      const chat = await zest.json('/v1/chat/completions', chatBody('tiny'));
      answered = Date.now();
      assert.equal(chat.status, 200, `${JSON.stringify(chat.data)}\n${zest.output.join('').slice(-3000)}`);
      assert.ok(chat.data.choices[0].message.content.length > 0);
    } finally {
      if (inner) {
        try { process.kill(inner.pid, 'SIGTERM'); } catch { /* gone already */ }
        await waitFor(() => !fs.existsSync(`/proc/${inner.pid}`), { timeout: 20000, what: 'zest to stop' });
      }
      await zest.stop();
      zest.cleanup();
    }
    t.diagnostic(`apt-get install to installed: ${((installed - started) / 1000).toFixed(1)} s; ` +
      `to the first answer (engines already provisioned, bound in): ${((answered - started) / 1000).toFixed(1)} s`);
    inRoot('apt-get purge -y -qq zest');
    assert.ok(!fs.existsSync(path.join(fresh, 'var/lib/zest')), 'purge left /var/lib/zest');
    assert.ok(!fs.existsSync(path.join(fresh, 'etc/zest')), 'purge left /etc/zest');
    assert.ok(!fs.existsSync(path.join(fresh, 'usr/bin/zest')));
    assert.match(inRoot('dpkg-query -W -f=\'${db:Status-Abbrev}\' zest 2>&1 || true'), /^(un|.*no packages found)/);
  });
});
