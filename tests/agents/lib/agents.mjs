// What the coding-agent tests share: where the pinned clients are
// (tests/agents/node_modules, `make agents` installs them), an empty HOME
// and a small project for each run, running a client headless in its
// sandbox (lib/sandbox.mjs) with a time limit, and what each turn must
// show. Each test starts zest with a synthetic model designed for these
// turns (zest-make-model's tiny-file-reader, src/tools/file_reader_weights.h:
// offered a client's tools, it calls the client's read tool on
// /scratch/a.txt; given the result, it answers READER_ANSWER) and puts a
// recording proxy (tests/lib/recording_proxy.mjs) between the client and
// zest. With ZEST_RECORD_AGENTS=DIR (`make record-agents`), a passing turn
// also writes what the client sent as a fixture in DIR (lib/fixture.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startRecordingProxy } from '../../lib/recording_proxy.mjs';
import { makeHome, startZest, zestBin } from '../../lib/zest.mjs';
import { installedVersion, writeFixture } from './fixture.mjs';
import { AGENT_HOME, AGENT_URL, sandboxed } from './sandbox.mjs';
import { FIRST_LINE, READ_PATH, READER_ANSWER } from './turns.mjs';

export { AGENT_HOME, AGENT_URL, SCRATCH } from './sandbox.mjs';
export { FIRST_LINE, READ_PATH, READER_ANSWER, exchanges } from './turns.mjs';

export const agentsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const modules = path.join(agentsDir, 'node_modules');

// The model every agent test serves, as makeHome takes it.
export const CODER_CONTEXT = 65536;
export const CODER = { preset: 'tiny-file-reader', args: ['--context', String(CODER_CONTEXT)] };

// A client started by `zest launch AGENT` (src/cli/launch_command.cc) in
// the sandbox, which points it at zest (AGENT_URL, as ZEST_HOST) for the
// model CODER serves: the argv and env for runClient. `args` are the
// client's own; `env` what the test adds that is not about zest (telemetry
// off). The clients are found on PATH, as a user's are: the pinned ones'
// bin directory first (its `node` is the Node 22 Qwen Code needs).
export function launched(agent, args, env = {}) {
  return {
    argv: [zestBin, 'launch', agent, '--model', 'coder', '--', ...args],
    env: { HOME: AGENT_HOME, ZEST_HOST: AGENT_URL, PATH: `${modules}/.bin:${process.env.PATH}`, ...env },
  };
}

// A fresh, empty directory to be a client's HOME: nothing set up for it.
export function emptyHome() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'zest-agent-home-'));
}

// A small project for the client to look at: two text files.
export function scratchProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-agent-work-'));
  fs.writeFileSync(path.join(dir, 'a.txt'), `${FIRST_LINE}\nsecond line\n`);
  fs.writeFileSync(path.join(dir, 'b.txt'), 'b\n');
  return dir;
}

// Runs `argv` (paths as the sandbox sees them) in the sandbox of
// lib/sandbox.mjs, with `work` at SCRATCH (its working directory), `home`
// at AGENT_HOME and the proxy's socket `socket` behind AGENT_URL, with
// exactly `env` (and the system PATH), stdin closed; resolves to {code,
// signal, stdout, stderr} when it exits, or kills it after `timeoutMs` and
// resolves with signal SIGKILL.
export function runClient(argv, { work, home, socket, env, timeoutMs = 180000 }) {
  const command = sandboxed(argv, { work, home, socket });
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), {
      env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // No bubblewrap (zest's engines need it too: `make deps` installs it):
    // a failed turn that says so.
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout: '', stderr: `cannot run ${command[0]}: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

// One client's test: zest serving CODER behind a recording proxy, and one
// turn of the client (npm package `pkg`): `run({home, client})` writes what
// the client needs into its empty HOME `home` (as the test sees it; the
// client sees it at AGENT_HOME) and resolves to `client(argv, {env})` (a
// runClient in the sandbox). The turn must exit 0, with no request
// answered 400 or more, none repeated and no error inside an answer; the
// model's one tool call (read by `exchange`, one of lib/turns.mjs's
// `exchanges`) is `read` ({name, args}: the client's read tool on
// READ_PATH); the client ran it and sent its result back, not an error (for
// a client whose errors are only text, `failed(result, stdout)` says, from
// the result's text or from what the client printed of it) and holding the
// file's first line; and the client printed the model's answer,
// READER_ANSWER, as its final text (`answer(stdout)` reads it from the
// client's JSON output).
export function describeAgent(name, { pkg, run, exchange, read, failed = () => false, answer }) {
  describe(name, () => {
    let zest;
    let proxy;
    let socketDir;
    before(async () => {
      zest = await startZest({ home: makeHome({ coder: CODER }), args: ['--ctx-size', String(CODER_CONTEXT)] });
      socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-agent-gate-'));
      proxy = await startRecordingProxy(zest.url, { socket: path.join(socketDir, 'proxy.sock') });
    });
    after(async () => {
      await proxy?.close();
      await zest?.stop();
      zest?.cleanup();
      if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
    });

    test('a turn that reads a file with the client\'s read tool, in its sandbox, and answers', async (t) => {
      const home = emptyHome();
      const work = scratchProject();
      const result = await run({
        home,
        client: (argv, { env, timeoutMs }) => runClient(argv, { work, home, socket: proxy.socket, env, timeoutMs }),
      });
      await proxy.settled();
      // What crossed the proxy and what the client printed, for whoever
      // reads a failure.
      const record = path.join(os.tmpdir(), `zest-agent-${name.replace(/\W+/g, '-')}`);
      fs.writeFileSync(`${record}.json`, JSON.stringify(proxy.requests, null, 1));
      fs.writeFileSync(`${record}.stdout`, result.stdout);
      fs.writeFileSync(`${record}.stderr`, result.stderr);
      t.diagnostic(`${name} exited ${result.code ?? result.signal}; ${proxy.requests.length} requests ` +
        `(${proxy.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('; ')}), recorded in ` +
        `${record}.json (its output in ${record}.stdout, .stderr)`);
      assert.equal(result.code, 0, `${name} failed:\n${result.stderr.slice(-4000)}\n${result.stdout.slice(-4000)}`);
      assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
      assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
      assert.deepEqual(proxy.errors(), [], 'no error inside an answer of 200');
      const { calls, results } = exchange(proxy.requests);
      assert.deepEqual(calls.map((c) => ({ name: c.name, args: c.args })), [read],
        `the model called ${read.name} once, on ${READ_PATH}, and ${name} understood the call`);
      const got = results.find((r) => r.id === calls[0].id);
      assert.ok(got, `${name} sent the call's result back: ${JSON.stringify(results)}`);
      assert.ok(!got.isError && !failed(got, result.stdout), `the tool ran without an error: ${JSON.stringify(got)}`);
      assert.ok(got.text.includes(FIRST_LINE), `the result holds the file's first line: ${JSON.stringify(got.text)}`);
      assert.equal(answer(result.stdout), READER_ANSWER, `${name} printed the model's answer:\n${result.stdout.slice(-4000)}`);
      if (process.env.ZEST_RECORD_AGENTS) {
        const file = name.toLowerCase().replace(/\W+/g, '_');
        const out = writeFixture(path.resolve(process.env.ZEST_RECORD_AGENTS), {
          client: name, pkg, version: installedVersion(modules, pkg), file, requests: proxy.requests, work, home,
        });
        t.diagnostic(`fixture written: ${out}`);
      }
      fs.rmSync(work, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    });
  });
}
