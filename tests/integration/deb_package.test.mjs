// make deb (scripts/make-deb.sh): the package is built from this build,
// passes lintian with no error or warning, says in its own metadata what it
// needs (Depends computed by dpkg-shlibdeps, plus libcurl, which zest opens
// itself, bubblewrap and ffmpeg), keeps /etc/zest/config.toml as a
// conffile, ships the systemd unit (service_unit.test.mjs checks the unit
// itself), and the zest it holds is this version and serves with the
// config it ships. Issue 46, first steps: installing it into a fresh
// Debian root with apt is not tested here yet.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { needs } from '../lib/requirements.mjs';
import { chatBody, makeHome, repo, startZest, zestBin } from '../lib/zest.mjs';

const has = (tool) => {
  try { execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }); return true; } catch { return false; }
};
const tools = ['dpkg-deb', 'dpkg-shlibdeps', 'help2man', 'lintian'];
const missing = tools.filter((t) => !has(t));

describe('make deb', { skip: needs(missing.length === 0, missing.join(', ')) }, () => {
  let dir, deb, root;
  const version = execFileSync(zestBin, ['--version']).toString().trim().split(' ')[1];
  const arch = execFileSync('dpkg', ['--print-architecture']).toString().trim();
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-deb-'));
    deb = execFileSync(path.join(repo, 'scripts/make-deb.sh'), [dir],
      { env: { ...process.env, BUILD_DIR: path.dirname(zestBin) } }).toString().trim();
    root = path.join(dir, 'root');
    execFileSync('dpkg-deb', ['-x', deb, root]);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('is named by the one version zest reports, and lintian finds nothing', () => {
    assert.match(version, /^\d+\.\d+\.\d+/);
    assert.equal(path.basename(deb), `zest_${version}_${arch}.deb`);
    const field = (name) => execFileSync('dpkg-deb', ['-f', deb, name]).toString().trim();
    assert.equal(field('Package'), 'zest');
    assert.equal(field('Version'), version);
    const depends = field('Depends').split(/,\s*/).map((d) => d.split(' ')[0]);
    for (const need of ['libc6', 'libstdc++6', 'libssl3', 'libcurl4', 'adduser', 'bubblewrap', 'ffmpeg',
      'init-system-helpers']) {
      assert.ok(depends.includes(need), `Depends lacks ${need}: ${field('Depends')}`);
    }
    // Exit status 0 with --fail-on error,warning: no error and no warning.
    execFileSync('lintian', ['--fail-on', 'error,warning', deb], { stdio: 'pipe' });
  });

  test('holds the programs, their man pages, the docs and the config as a conffile', () => {
    const contents = execFileSync('dpkg-deb', ['-c', deb]).toString();
    for (const file of ['./usr/bin/zest', './usr/bin/zest-make-model', './etc/zest/config.toml',
      './usr/share/man/man1/zest.1.gz', './usr/share/man/man1/zest-make-model.1.gz',
      './usr/share/doc/zest/copyright', './usr/share/doc/zest/changelog.gz',
      './lib/systemd/system/zest.service']) {
      assert.match(contents, new RegExp(` ${file.replace(/[.]/g, '\\.')}\n`), `${file} missing:\n${contents}`);
    }
    const control = path.join(dir, 'control');
    execFileSync('dpkg-deb', ['-e', deb, control]);
    assert.equal(fs.readFileSync(path.join(control, 'conffiles'), 'utf8').trim(), '/etc/zest/config.toml');
    for (const script of ['postinst', 'prerm', 'postrm']) {
      assert.equal(fs.statSync(path.join(control, script)).mode & 0o111, 0o111, `${script} is not executable`);
    }
    // The man page is the CLI's own help, the server's options included.
    const man = execFileSync('sh', ['-c', `gzip -dc ${root}/usr/share/man/man1/zest.1.gz`]).toString();
    assert.match(man, /haproxy\\?-config/);
    assert.match(man, /SERVER OPTIONS/);
    assert.match(man, /\\?-\\?-models\\?-dir/);
  });

  test('the packaged zest is this version and answers with the config it ships', async () => {
    const packaged = path.join(root, 'usr/bin/zest');
    assert.equal(execFileSync(packaged, ['--version']).toString().trim(), `zest ${version}`);
    const zest = await startZest({ bin: packaged, home: makeHome({ tiny: 'tiny' }),
      args: ['--config', path.join(root, 'etc/zest/config.toml')] });
    try {
      assert.equal((await zest.fetch('/health')).status, 200);
      const chat = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(chat.status, 200, JSON.stringify(chat.data));
      assert.ok(chat.data.choices[0].message.content.length > 0);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});
