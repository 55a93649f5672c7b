// What the coding-agent tests share: where the pinned clients are
// (tests/agents/node_modules, `make agents` installs them), an empty HOME
// and a small project for each run, and running a client headless with a
// time limit. Each test starts zest with a synthetic model made for long
// agent prompts (the steering finds <tools> at the start of a 65,536-token
// context) and puts a recording proxy (tests/lib/recording_proxy.mjs)
// between the client and zest. With ZEST_RECORD_AGENTS=DIR (`make
// record-agents`), a passing turn also writes what the client sent as a
// fixture in DIR (lib/fixture.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startRecordingProxy } from '../../lib/recording_proxy.mjs';
import { makeHome, startZest } from '../../lib/zest.mjs';
import { installedVersion, writeFixture } from './fixture.mjs';

export const agentsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const modules = path.join(agentsDir, 'node_modules');

// The model every agent test serves, as makeHome takes it.
export const CODER = { preset: 'tiny', args: ['--context', '65536'] };
export const CODER_CONTEXT = 65536;
// Its engine samples from a fixed seed (clients send no seed of their own),
// so a client's turn goes the same way on every run: the synthetic model's
// words are random, and an unlucky draw (a tool's arguments no client can
// parse) would make a test that passes or fails by chance.
export const CODER_CONFIG = '[models."coder"]\nextra_args = ["--seed", "1"]\n';

// A fresh, empty directory to be a client's HOME: nothing set up for it.
export function emptyHome() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'zest-agent-home-'));
}

// A small project for the client to look at: two text files.
export function scratchProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-agent-work-'));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'first line of a\nsecond line\n');
  fs.writeFileSync(path.join(dir, 'b.txt'), 'b\n');
  return dir;
}

// Runs `argv` in `cwd` with exactly `env` (and the system PATH), stdin
// closed; resolves to {code, signal, stdout, stderr} when it exits, or
// kills it after `timeoutMs` and resolves with signal SIGKILL.
export function runClient(argv, { cwd, env, timeoutMs = 180000 }) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

// Every file under `dir`, relative, sorted: what a client wrote in its HOME.
export function listTree(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

// The tool results a chat-API client sent back (OpenAI's `tool` messages).
export const chatToolResults = (requests) => requests
  .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/completions'))
  .flatMap((r) => (Array.isArray(r.body?.messages) ? r.body.messages : []))
  .filter((m) => m.role === 'tool');

// One client's test: zest serving CODER behind a recording proxy, and one
// turn of the client (npm package `pkg`), `run({proxy, home, work})` (an
// empty HOME, a scratch project; it resolves to runClient's result), that
// must exit 0 with no request answered 400 or more, none repeated, and at
// least one tool result sent back (`toolResults(requests)`): the model
// called one of the client's tools, the client ran it and asked again.
export function describeAgent(name, { pkg, run, toolResults }) {
  describe(name, () => {
    let zest;
    let proxy;
    before(async () => {
      zest = await startZest({ home: makeHome({ coder: CODER }, { config: CODER_CONFIG }), args: ['--ctx-size', String(CODER_CONTEXT)] });
      proxy = await startRecordingProxy(zest.url);
    });
    after(async () => { await proxy?.close(); await zest?.stop(); zest?.cleanup(); });

    test('a turn with a tool round trip: nothing refused, nothing sent twice', async (t) => {
      const home = emptyHome();
      const work = scratchProject();
      const result = await run({ proxy, home, work });
      // What crossed the proxy, for whoever reads a failure.
      const record = path.join(os.tmpdir(), `zest-agent-${name.replace(/\W+/g, '-')}.json`);
      fs.writeFileSync(record, JSON.stringify(proxy.requests, null, 1));
      t.diagnostic(`${name} exited ${result.code ?? result.signal}; ${proxy.requests.length} requests ` +
        `(${proxy.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('; ')}), recorded in ${record}`);
      assert.equal(result.code, 0, `${name} failed:\n${result.stderr.slice(-4000)}\n${result.stdout.slice(-4000)}`);
      assert.deepEqual(proxy.failures().map((r) => `${r.method} ${r.path} ${r.status}`), []);
      assert.deepEqual(proxy.repeats().map((r) => `${r.method} ${r.path}`), []);
      assert.ok(toolResults(proxy.requests).length >= 1,
        `${name} sent a tool's result back: the model called a tool and ${name} ran it`);
      if (process.env.ZEST_RECORD_AGENTS) {
        const file = name.toLowerCase().replace(/\W+/g, '_');
        const out = writeFixture(path.resolve(process.env.ZEST_RECORD_AGENTS), {
          client: name, pkg, version: installedVersion(modules, pkg), file, requests: proxy.requests, work, home,
        });
        t.diagnostic(`fixture written: ${out}`);
      }
    });
  });
}
