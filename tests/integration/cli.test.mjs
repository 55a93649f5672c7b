// The zest CLI talking to a running server.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest, syntheticModel, syntheticVision, waitFor, zestBin } from '../lib/zest.mjs';

const run = promisify(execFile);

describe('zest CLI', () => {
  let zest;
  let env;
  const cli = (...args) => run(zestBin, args, { env });
  before(async () => {
    // `long` can generate for seconds: time enough to interrupt it.
    zest = await startZest({
      home: makeHome({ tiny: 'tiny', long: { preset: 'tiny', args: ['--context', '32768'] } }),
      args: ['--ctx-size', '65536', '--parallel', '2'],
    });
    env = { ...process.env, ZEST_HOST: zest.url, ZEST_HOME: zest.home };
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('--version and --help', async () => {
    assert.match((await cli('--version')).stdout, /^zest \d+\.\d+\.\d+/);
    for (const sub of ['serve', 'run', 'list', 'ps', 'stop', 'engines', 'config', 'add']) {
      assert.match((await cli(sub, '--help')).stdout, /Usage|OPTIONS|Options/i, sub);
    }
  });

  test('list shows models with metadata', async () => {
    const { stdout } = await cli('list');
    assert.match(stdout, /^NAME\s+ARCH/m);
    assert.match(stdout, /^tiny\s+llama/m);
    assert.match(stdout, /^long\s+llama/m);
  });

  test('add registers a file elsewhere under a name', async () => {
    const file = syntheticModel('tiny', ['--seed', '7']);
    const { stdout } = await cli('add', 'other/model', file);
    assert.match(stdout, /added other\/model/);
    assert.match((await cli('list')).stdout, /^other\/model\s+llama/m);
    await assert.rejects(cli('add', 'bad', '/nonexistent.gguf'), /no such file/);
  });

  test('add --mmproj pairs a vision projector: list and show say vision', async () => {
    const { model, mmproj } = syntheticVision();
    // The projector alone is not a model, and a model is not a projector.
    await assert.rejects(cli('add', 'seer', mmproj), /is a vision projector, not a model; give it as --mmproj/);
    await assert.rejects(cli('add', 'seer', model, '--mmproj', model), /not a multimodal projector/);
    assert.match((await cli('add', 'seer', model, '--mmproj', mmproj)).stdout, /added seer .* with projector /);
    assert.match((await cli('list')).stdout, /^seer\s+llama.*\bvision\b/m);
    assert.doesNotMatch((await cli('list')).stdout, /^tiny\s+llama.*\bvision\b/m);
    const show = (await cli('show', 'seer')).stdout;
    assert.match(show, /capabilities\s+completion, vision/);
    assert.match(show, /projector\s+zest-synthetic-mmproj .*images: mlp, 32 px in 8 px patches/);
  });

  test('run answers a one-shot prompt by streaming', async () => {
    const { stdout } = await cli('run', 'tiny', '--max-tokens', '5', '-o', 'ignore_eos=true', 'Hello there');
    assert.ok(stdout.trim().length > 0);
    await assert.rejects(cli('run', 'nope', 'hi'), /not found/);
  });

  test('interactive run: Ctrl-C stops the answer, not the program', async () => {
    // A real terminal (util-linux `script` allocates a pty), so Ctrl-C is the
    // terminal's SIGINT and the session is interactive as for a user. `exec`:
    // the shell `script` starts must not stay in the foreground group, or
    // Ctrl-C kills the shell and `script` exits 130 under some $SHELLs.
    const cmd = `exec ${zestBin} run long --max-tokens 30000 -o ignore_eos=true`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    await waitFor(() => out.includes('>>> '), { timeout: 10000, what: 'the prompt' });
    child.stdin.write('tell me a long story\r');
    await waitFor(() => out.split('tell me a long story')[1]?.length > 200, { timeout: 10000, what: 'tokens' });
    child.stdin.write('\x03');  // Ctrl-C
    await waitFor(() => /\[stopped\]/.test(out), { what: '[stopped]' });
    await waitFor(() => out.split('[stopped]')[1]?.includes('>>> '), { what: 'a new prompt' });
    assert.equal(child.exitCode, null, 'still running');
    child.stdin.write('/bye\r');
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0);
  });

  test('ps shows the loaded instance and stop stops it', async () => {
    await cli('run', 'tiny', '--max-tokens', '2', 'hi');
    let { stdout } = await cli('ps');
    assert.match(stdout, /^tiny\s+\d+\s+ready/m);
    ({ stdout } = await cli('stop', 'tiny'));
    assert.match(stdout, /stopped tiny/);
    ({ stdout } = await cli('ps'));
    assert.doesNotMatch(stdout, /^tiny/m);
    await assert.rejects(cli('stop', 'tiny'), /not loaded/);
  });

  test('engines shows llama-server, its source and version', async () => {
    const { stdout } = await cli('engines');
    assert.match(stdout, /llama-server\s+\d+\.\d+/);
    assert.match(stdout, /source:\s+(rootfs|system|configured)/);
    assert.match(stdout, /devices:/);
  });

  test('config shows effective settings and their origins', async () => {
    const { stdout } = await cli('config');
    assert.match(stdout, /^server\.port\s+\d+\s+flag/m);
    assert.match(stdout, /^log\.level\s+debug\s+env \(ZEST_LOG_LEVEL\)/m);
    assert.match(stdout, /^engine\.parallel\s+2\s+flag/m);
    assert.match(stdout, /^engine\.threads\s+0\s+default/m);
  });

  test('a client command without a server says how to start one', async () => {
    await assert.rejects(run(zestBin, ['list'], { env: { ...env, ZEST_HOST: 'http://127.0.0.1:1' } }),
      /zest serve/);
  });
});
