// A new user's first steps, from nothing: an empty HOME, no ZEST_HOME, no
// Hugging Face cache, no HF_* or XDG variables. Every other test prepares
// a directory first, which is how the first `zest pull` on a fresh machine
// came to fail (the cache did not exist) with no test noticing.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startFakeHub } from '../lib/fake_hub.mjs';
import { chatBody, syntheticModel, zestBin } from '../lib/zest.mjs';

const run = promisify(execFile);
const REPO = 'test-org/Fresh-GGUF';
let hub;
let home;

// Only what a login shell would have; as root the engine is provisioned
// machine-wide, otherwise it lives under the real HOME's cache.
function freshEnv(extra = {}) {
  const env = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', ...extra };
  if (process.getuid() !== 0) {
    const cache = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
    env.ZEST_ENGINE_ROOTFS = process.env.ZEST_ENGINE_ROOTFS ?? path.join(cache, 'zest/engines/debian-sid');
  }
  return env;
}

before(async () => {
  hub = await startFakeHub({ repos: { [REPO]: { files: { 'fresh-Q8_0.gguf': fs.readFileSync(syntheticModel('tiny')) } } } });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-empty-home-'));
});
after(async () => { await hub.close(); fs.rmSync(home, { recursive: true, force: true }); });

test('keys, a server, a pull and a first chat from an empty HOME', async () => {
  // `zest keys add` makes zest's home on its own.
  const { stdout: key } = await run(zestBin, ['keys', 'add', 'me', '--scope', 'admin'], { env: freshEnv() });
  const zestHome = path.join(home, '.local/share/zest');
  assert.equal(fs.statSync(zestHome).mode & 0o777, 0o700);

  const proc = spawn(zestBin, ['serve', '--port', '0'], { env: freshEnv({ HF_ENDPOINT: hub.url }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`zest did not start:\n${output}`)), 15000);
    const onData = (d) => {
      output += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`zest exited ${code}:\n${output}`)); });
  });
  try {
    const cli = freshEnv({ ZEST_HOST: url, ZEST_API_KEY: key.trim() });
    const pulled = await run(zestBin, ['pull', REPO], { env: cli });
    assert.match(pulled.stdout + pulled.stderr, /test-org\/Fresh-GGUF:Q8_0/);
    const cache = path.join(home, '.cache/huggingface/hub');
    assert.equal(fs.statSync(cache).mode & 0o777, 0o700, 'zest made the cache, private');
    assert.ok(fs.existsSync(path.join(cache, 'models--test-org--Fresh-GGUF')));

    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.trim()}` },
      body: JSON.stringify(chatBody('test-org/Fresh-GGUF:Q8_0')),
    });
    assert.equal(res.status, 200, await res.text());
    const { stdout: list } = await run(zestBin, ['list'], { env: cli });
    assert.match(list, /test-org\/Fresh-GGUF:Q8_0/);
    // Every directory zest made under its home is private, and there are
    // the ones a server that has served a model must have made.
    const dirs = fs.readdirSync(zestHome, { recursive: true })
      .filter((p) => fs.lstatSync(path.join(zestHome, p)).isDirectory());
    for (const dir of ['logs', 'run']) assert.ok(dirs.includes(dir), `${dir}/ in ${dirs.join(', ')}`);
    for (const dir of dirs) assert.equal(fs.lstatSync(path.join(zestHome, dir)).mode & 0o777, 0o700, dir);
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
});
