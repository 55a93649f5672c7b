// Engines in a real sandbox, and engine flags by allow-list: every spelling
// of a flag that once got past the deny-list is refused with 400, files
// named by flags must be files zest serves, and a real llama-server started
// by zest has a network namespace of its own, none of zest's secrets in its
// environment, no way to zest's port and no view of zest's home.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chatBody, descendants, makeHome, startZest, zestBin } from '../lib/zest.mjs';

const admin = 'admin-key-for-the-sandbox-tests-0123';
const bearer = { authorization: `Bearer ${admin}` };

describe('engine flags by allow-list', () => {
  let zest;
  before(async () => {
    const home = makeHome({ tiny: 'tiny' });
    fs.writeFileSync(path.join(home, 'models', 'chat.jinja'),
      "{% for m in messages %}{{ m['content'] }}{% endfor %}");
    zest = await startZest({ home, env: { ZEST_API_KEY: admin } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  const load = (extra) => zest.json('/api/v1/load', { model: 'tiny', options: { extra_args: extra } },
    { headers: bearer });

  test('every spelling of a flag that reaches outside the engine is refused with 400', async () => {
    const mcp = '{"mcpServers":{"x":{"command":"/bin/sh","args":["-c","touch /tmp/pwned"]}}}';
    const tries = [
      ['--mcp-servers-json', mcp], ['--mcp_servers_json', mcp], [`--mcp-servers-json=${mcp}`],
      [`--mcp_servers_json=${mcp}`], ['--mcp-servers-config', '/tmp/x.json'],
      ['--tools', 'all'], ['--tools=all'], ['--agent'],
      ['--api_key', 'X'], ['--api-key=X'], ['--log_file', '/tmp/zest-log'], ['--log-file=/tmp/zest-log'],
      ['--log-prompts-dir', '/tmp/p'], ['--log_prompts_dir=/tmp/p'],
      ['--slot_save_path', '/tmp'], ['--slot-save-path=/tmp'],
      ['--media-path', '/'], ['--video-ffmpeg-dir', '/tmp'], ['-v'], ['--temp', '0.5', '--port', '1'],
    ];
    for (const extra of tries) {
      const r = await load(extra);
      assert.equal(r.status, 400, `${extra.join(' ')}: ${JSON.stringify(r.data)}`);
      assert.equal(r.data.error.param, 'options.extra_args');
      const flag = extra.find((a) => a.startsWith('-') && !['--temp'].includes(a)).split('=')[0];
      assert.match(r.data.error.message, new RegExp(`'${flag}'`), r.data.error.message);
    }
    assert.ok(!fs.existsSync('/tmp/pwned'));
    const ps = await zest.json('/api/v1/ps', undefined, { headers: bearer });
    assert.deepEqual(ps.data.instances, [], 'nothing was started');
  });

  test('allowed flags reach the engine in their canonical spelling', async () => {
    const r = await load(['--temperature=0.3', '--top_k', '7', '-lv', '3']);
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const [engine] = descendants(zest.pid).filter((p) => p.comm === 'llama-server');
    const argv = fs.readFileSync(`/proc/${engine.pid}/cmdline`, 'utf8').split('\0');
    const tail = argv.slice(argv.indexOf('--temp'));
    assert.deepEqual(tail.slice(0, 6), ['--temp', '0.3', '--top-k', '7', '--log-verbosity', '3']);
  });

  test('files named by flags must be files zest serves', async () => {
    const inside = path.join(zest.home, 'models', 'chat.jinja');
    let r = await load(['--chat-template-file', inside]);
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const chat = await zest.json('/v1/chat/completions', chatBody('tiny'), { headers: bearer });
    assert.equal(chat.status, 200, JSON.stringify(chat.data));
    for (const outside of [path.join(zest.home, 'config.toml'), '/etc/passwd',
      path.join(zest.home, 'models', '..', 'keys.json'), path.join(zest.home, 'models', 'missing.jinja')]) {
      r = await load(['--chat-template-file', outside]);
      assert.equal(r.status, 400, `${outside}: ${JSON.stringify(r.data)}`);
      assert.match(r.data.error.message, /not among the files zest serves|not an existing file/);
    }
  });
});

describe('the engine sandbox', () => {
  let zest, engine;
  before(async () => {
    const home = makeHome({ tiny: 'tiny' });
    execFileSync(zestBin, ['keys', 'add', 'someone'], { env: { ...process.env, ZEST_HOME: home }, stdio: 'pipe' });
    zest = await startZest({ home, env: { ZEST_API_KEY: admin, HF_TOKEN: 'hf_must_not_leak' } });
    const r = await zest.json('/v1/chat/completions', chatBody('tiny'), { headers: bearer });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    [engine] = descendants(zest.pid).filter((p) => p.comm === 'llama-server');
    assert.ok(engine, 'a llama-server runs');
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('it has a network namespace of its own', () => {
    const ns = (pid) => fs.readlinkSync(`/proc/${pid}/ns/net`);
    assert.notEqual(ns(engine.pid), ns(zest.pid));
  });

  test('its environment holds none of zest\'s variables', () => {
    const env = fs.readFileSync(`/proc/${engine.pid}/environ`, 'utf8').split('\0').filter(Boolean);
    assert.ok(env.length > 0);
    const leaked = env.filter((kv) => /^(ZEST_|HF_)/.test(kv));
    assert.deepEqual(leaked, []);
    // The same check on zest itself finds them: it can fail.
    const own = fs.readFileSync(`/proc/${zest.pid}/environ`, 'utf8');
    assert.match(own, /ZEST_API_KEY=/);
  });

  test('from inside, zest\'s port and home are out of reach', (t) => {
    if (process.getuid() !== 0) return t.skip('nsenter needs root');
    const port = new URL(zest.url).port;
    const probe = `cat ${zest.home}/keys.json >/dev/null 2>&1 && echo home=read || echo home=hidden; `
      + `(echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo port=reached || echo port=unreachable`;
    // Run in the engine's mount and network namespaces, with its /bin/bash.
    const inside = execFileSync('nsenter', ['-t', String(engine.pid), '-m', '-n', '--', '/bin/bash', '-c', probe],
      { encoding: 'utf8' });
    assert.match(inside, /home=hidden/);
    assert.match(inside, /port=unreachable/);
    // The same probe in zest's namespaces reaches both.
    const outside = spawnSync('/bin/bash', ['-c', probe], { encoding: 'utf8' }).stdout;
    assert.match(outside, /home=read/);
    assert.match(outside, /port=reached/);
  });
});
