// Engine lifecycle: shared loads, several models, concurrency, client
// disconnects, engine crashes and zest being killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  alive, chatBody, descendants, engineGet, makeHome, openStream, startZest, waitFor,
} from '../lib/zest.mjs';

const enginePids = (zest) => descendants(zest.pid).filter((p) => p.comm === 'llama-server');

describe('engine lifecycle', () => {
  let zest;
  before(async () => {
    zest = await startZest({ home: makeHome({ a: 'tiny', b: 'tiny' }), args: ['--parallel', '4'] });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('concurrent first requests share one load', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () => zest.json('/v1/chat/completions', chatBody('a'))));
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.data));
    const instances = await zest.instances();
    assert.equal(instances.filter((i) => i.model === 'a').length, 1);
    assert.equal(enginePids(zest).length, 1);
  });

  test('every slot gets the per-request context, capped at the model\'s trained length', async () => {
    const instance = (await zest.instances()).find((i) => i.model === 'a');
    const slots = (await engineGet(instance.socket, '/slots')).data;
    assert.equal(slots.length, 5);  // --parallel 4, plus scheduler.reserved_slots (1) for high priority
    // Default ctx_size 4096, above the tiny preset's trained 2048.
    for (const slot of slots) assert.equal(slot.n_ctx, 2048);
  });

  test('two models in turn each get an engine', async () => {
    for (const model of ['a', 'b', 'a']) {
      const r = await zest.json('/v1/chat/completions', chatBody(model));
      assert.equal(r.status, 200, JSON.stringify(r.data));
      assert.equal(r.data.model, model);
    }
    const models = (await zest.instances()).map((i) => i.model).sort();
    assert.deepEqual(models, ['a', 'b']);
  });

  test('16 concurrent streams all complete', async () => {
    const streams = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      zest.stream('/v1/chat/completions', chatBody(i % 2 ? 'a' : 'b', { max_tokens: 16 }))));
    for (const s of streams) {
      assert.equal(s.status, 200);
      assert.equal(s.events.at(-1), '[DONE]');
      assert.ok(s.events.length >= 3);
    }
  });

  test('loads of two models overlap in time (no global load lock)', async () => {
    // Big contexts make each load take a while (the KV cache is allocated).
    const big = { preset: 'tiny', args: ['--context', '131072'] };
    const z = await startZest({ home: makeHome({ c: big, d: big }), args: ['--ctx-size', '131072'] });
    try {
      const results = await Promise.all(['c', 'd'].map((m) => z.json('/v1/chat/completions', chatBody(m))));
      for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.data));
      // Both engines were started before either was ready.
      const events = z.logs().split('\n').flatMap((line) => {
        if (/loading '[cd]' \(pid/.test(line)) return ['loading'];
        if (/'[cd]' ready in/.test(line)) return ['ready'];
        return [];
      });
      assert.equal(events.length, 4, z.logs());
      assert.deepEqual(events.slice(0, 2), ['loading', 'loading'], z.logs());
    } finally { await z.stop(); z.cleanup(); }
  });
});

// A model with a long context, so a generation would run for many seconds
// unless something stops it.
describe('engine lifecycle: long generations', () => {
  let zest;
  const long = (extra = {}) => chatBody('long', { max_tokens: 30000, ignore_eos: true, ...extra });
  before(async () => {
    zest = await startZest({
      home: makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } }),
      args: ['--ctx-size', '32768', '--parallel', '1'],
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('a client that disconnects mid-stream stops the engine within a second', async () => {
    const s = await openStream(zest, long());
    assert.equal(s.status, 200);
    const instance = (await zest.instances()).find((i) => i.model === 'long');
    const busy = (await engineGet(instance.socket, '/slots')).data;
    assert.ok(busy.some((slot) => slot.is_processing), 'engine should be generating');
    s.abort();
    await waitFor(async () => {
      const slots = (await engineGet(instance.socket, '/slots')).data;
      return slots.every((slot) => !slot.is_processing);
    }, { timeout: 1000, what: 'engine slots to go idle' });
  });

  // llama-server runs a non-streamed task to its end when its client goes
  // (llama.cpp issue 9273): zest asks it for a stream and assembles the answer.
  test('a client that leaves a non-streamed request stops the engine within a second', async () => {
    assert.equal((await zest.json('/api/v1/load', { model: 'long' })).status, 200);
    const instance = (await zest.instances()).find((i) => i.model === 'long');
    const controller = new AbortController();
    const pending = zest.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(long()),
      signal: controller.signal,
    }).catch((e) => e.name);
    await waitFor(async () => (await engineGet(instance.socket, '/slots')).data.some((s) => s.is_processing),
      { what: 'generation to start' });
    controller.abort();
    assert.equal(await pending, 'AbortError');
    await waitFor(async () => {
      const slots = (await engineGet(instance.socket, '/slots')).data;
      return slots.every((slot) => !slot.is_processing);
    }, { timeout: 1000, what: 'engine slots to go idle' });
  });

  // Engines killed from outside are not the request's doing: it is tried on
  // fresh ones until its deadline, not only four times (engines that crash
  // on their own count, as a prompt that crashes them would crash them all).
  test('a non-streamed request whose engines are killed before answering, five in a row, is answered by the sixth', async () => {
    await zest.json('/v1/chat/completions', chatBody('long'));  // loaded
    const pending = zest.json('/v1/chat/completions', chatBody('long', { max_tokens: 3000 }));
    const killed = new Set();  // zest's instance pids
    for (let round = 1; round <= 5; round++) {
      // The request's engine generating (a slot busy), nothing answered yet: kill it.
      let victim = null;
      await waitFor(async () => {
        const instance = (await zest.instances())
          .find((i) => i.model === 'long' && i.state === 'ready' && !killed.has(i.pid));
        if (!instance) return false;
        const slots = await engineGet(instance.socket, '/slots').catch(() => null);
        if (!Array.isArray(slots?.data) || !slots.data.some((s) => s.is_processing)) return false;
        victim = { instance: instance.pid, engine: descendants(instance.pid).find((p) => p.comm === 'llama-server') };
        return victim.engine !== undefined;
      }, { timeout: 30000, what: `engine ${round} to generate` });
      killed.add(victim.instance);
      process.kill(victim.engine.pid, 'SIGKILL');
    }
    const r = await pending;
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.equal(r.data.usage.completion_tokens, 3000);
    const last = (await zest.instances()).find((i) => i.model === 'long');
    assert.ok(last && !killed.has(last.pid), 'answered by a sixth engine');
    assert.equal(zest.logs().match(/engine for 'long' broke off before answering, trying a fresh one/g)?.length, 5);
  });

  test('an engine killed mid-stream: the chat stream goes on from a fresh engine, whole', async () => {
    let events = 0;
    let killed = null;
    const r = await zest.stream('/v1/chat/completions',
      long({ max_tokens: 2000, stream_options: { include_usage: true } }), {
        onEvent: () => {
          if (++events !== 20) return;
          killed = enginePids(zest)[0];
          process.kill(killed.pid, 'SIGKILL');
        },
      });
    assert.ok(killed, 'the engine was killed mid-stream');
    assert.equal(r.status, 200);
    assert.equal(r.events.at(-1), '[DONE]');
    const chunks = r.events.slice(0, -1).map((e) => JSON.parse(e));
    assert.ok(!chunks.some((c) => c.error), JSON.stringify(chunks.find((c) => c.error)));
    // One stream as the client sees it: one id, one role, the whole length.
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
    assert.equal(chunks.filter((c) => c.choices?.[0]?.delta?.role).length, 1);
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    // Chunks count tokens only roughly (llama-server holds back incomplete
    // UTF-8, which the synthetic model makes often), but the answer went on
    // well past the kill, to its length, and usage counts it whole.
    const content = chunks.filter((c) => typeof c.choices?.[0]?.delta?.content === 'string');
    assert.ok(content.length > 1000, `${content.length} content chunks`);
    assert.equal(chunks.filter((c) => c.choices?.[0]?.finish_reason).length, 1);
    assert.equal(chunks.find((c) => c.choices?.[0]?.finish_reason).choices[0].finish_reason, 'length');
    assert.equal(chunks.at(-1).usage.completion_tokens, 2000);
    assert.notEqual(enginePids(zest)[0]?.pid, killed.pid, 'a fresh engine finished it');
    assert.match(zest.logs(), /engine for 'long' broke off a stream: .*; resuming it on a fresh engine/);
  });

  test('an engine killed mid-way through a text completion stream: an error event; the next request works', async () => {
    let killed = false;
    const r = await zest.stream('/v1/completions',
      { model: 'long', prompt: 'Once', max_tokens: 30000, ignore_eos: true }, {
        onEvent: () => {
          if (killed) return;
          killed = true;
          for (const p of enginePids(zest)) process.kill(p.pid, 'SIGKILL');
        },
      });
    assert.ok(killed);
    assert.equal(r.status, 200);
    const last = JSON.parse(r.events.at(-1));
    assert.ok(last.error, `last event: ${r.events.at(-1)}`);
    assert.match(last.error.message, /stopped mid-stream/);
    const next = await zest.json('/v1/chat/completions', chatBody('long'));
    assert.equal(next.status, 200, JSON.stringify(next.data));
  });
});

describe('crash-loop breaker', () => {
  test('an engine that fails on its own is held off, twice as long each time; an explicit load tries at once', async () => {
    const home = makeHome({ bad: 'tiny' });
    // An allowed flag with a value llama-server refuses: it exits at once, every time.
    fs.writeFileSync(path.join(home, 'config.toml'), '[models."bad"]\nextra_args = ["--chat-template-kwargs", "not json"]\n');
    // 3 s, not the default 1 s: the held requests below must come within it on a loaded machine.
    const zest = await startZest({ home, env: { ZEST_RESTART_BACKOFF_MS: '3000' } });
    const engines = () => (zest.logs().match(/loading 'bad' \(pid/g) ?? []).length;
    try {
      const first = await zest.json('/v1/chat/completions', chatBody('bad'));
      assert.equal(first.status, 500, JSON.stringify(first.data));
      assert.equal(first.data.error.code, 'engine_failed');
      assert.match(first.data.error.message, /exited with code 1 while loading \(its output is in zest's log\)/);
      // The engine's own words (host paths, what it read) go to the log only (issue 52, 9).
      assert.doesNotMatch(first.data.error.message, /chat-template-kwargs/);
      assert.match(zest.logs(), /while loading; its last output:[\s\S]*chat-template-kwargs/);
      // Held off: refused at once with the reason, no new engine.
      const held = await zest.json('/v1/chat/completions', chatBody('bad'));
      assert.equal(held.status, 500);
      assert.equal(held.data.error.code, 'engine_failed');
      assert.match(held.data.error.message, /failed 1 time; not restarting it for another [0-3](\.\d)? s\. Last failure: .*exited with code 1 while loading/);
      assert.equal(engines(), 1);
      // After the hold, one more engine; it fails too, and the hold doubles.
      await waitFor(async () => !/not restarting/.test((await zest.json('/v1/chat/completions', chatBody('bad'))).data.error.message),
        { timeout: 10000, what: 'the hold to end' });
      assert.equal(engines(), 2);
      const again = await zest.json('/v1/chat/completions', chatBody('bad'));
      assert.match(again.data.error.message, /failed 2 times in a row; not restarting it for another [0-6](\.\d)? s/);
      assert.equal(engines(), 2);
      // An explicit load (perhaps after a fix) is tried now.
      const load = await zest.json('/api/v1/load', { model: 'bad' });
      assert.equal(load.status, 500, JSON.stringify(load.data));
      assert.match(load.data.error.message, /exited with code 1 while loading/);
      assert.equal(engines(), 3);
      assert.match(zest.logs(), /'bad' failed on its own: not restarting it for 3\.0 s/);
    } finally { await zest.stop(); zest.cleanup(); }
  });

  test('an engine killed from outside is restarted at once, every time', async () => {
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { ZEST_WATCHDOG: '0' } });
    try {
      for (let i = 0; i < 4; ++i) {
        const r = await zest.json('/v1/chat/completions', chatBody('tiny'));
        assert.equal(r.status, 200, JSON.stringify(r.data));
        const [engine] = enginePids(zest);
        process.kill(engine.pid, 'SIGKILL');
        await waitFor(async () => (await zest.instances()).length === 0, { timeout: 5000, what: 'the dead engine forgotten' });
      }
      assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
      assert.doesNotMatch(zest.logs(), /not restarting/);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('engine watchdog', () => {
  test('an engine stopped with SIGSTOP is killed and replaced', async () => {
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { ZEST_WATCHDOG: '3' } });
    try {
      assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
      const [engine] = enginePids(zest);
      assert.ok(engine, 'an engine runs');
      process.kill(engine.pid, 'SIGSTOP');
      await waitFor(() => /engine for 'tiny' \(pid \d+\) has not answered for 3 s; killing it/.test(zest.logs()),
        { timeout: 20000, what: 'the watchdog' });
      await waitFor(() => !alive(engine.pid), { timeout: 15000, what: 'the stopped engine to die' });
      const r = await zest.json('/v1/chat/completions', chatBody('tiny'));
      assert.equal(r.status, 200, JSON.stringify(r.data));
      const [fresh] = enginePids(zest);
      assert.notEqual(fresh.pid, engine.pid);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('engine exits no request sees', () => {
  test('an engine killed while idle leaves the list within seconds, and counts as a crash', async () => {
    // The hung-engine check is off: only the exit check can find it.
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }), env: { ZEST_WATCHDOG: '0' } });
    try {
      assert.equal((await zest.json('/api/v1/load', { model: 'tiny' })).status, 200);
      const [engine] = enginePids(zest);
      process.kill(engine.pid, 'SIGKILL');
      await waitFor(async () => (await zest.instances()).length === 0, { timeout: 5000, what: 'the dead engine forgotten' });
      assert.match(zest.logs(), /engine for 'tiny' \(pid \d+\) exited with code 137/);  // bwrap's way of saying SIGKILL
      const metrics = await (await zest.fetch('/metrics')).text();
      assert.match(metrics, /^zest_engine_crashes_total\{model="tiny"\} 1$/m);
      assert.equal((await zest.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('loads killed from outside', () => {
  test('a request waits through five loads killed in a row and is answered', async () => {
    const zest = await startZest({ home: makeHome({ tiny: 'tiny' }) });
    try {
      // Each new engine is killed as soon as it appears, until zest has
      // said five times that it loads again for the request (three used to
      // be the most a request waited through).
      const killedLoads = () => (zest.logs().match(/'tiny' was killed while it loaded/g) || []).length;
      const seen = new Set();
      let answered = false;
      const killer = (async () => {
        while (!answered && killedLoads() < 5) {
          for (const p of enginePids(zest)) {
            if (seen.has(p.pid)) continue;
            seen.add(p.pid);
            try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone already */ }
          }
          // A poll of /proc, not a wait for zest: the engine must die while it
          // loads, before zest could report it, so only its process shows it.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const r = await zest.json('/v1/chat/completions', chatBody('tiny'));
      answered = true;
      await killer;
      assert.equal(r.status, 200, JSON.stringify(r.data));
      assert.ok(killedLoads() >= 5, `loads killed and started again: ${killedLoads()}`);
    } finally { await zest.stop(); zest.cleanup(); }
  });
});

describe('zest shutdown', () => {
  test('SIGTERM stops every engine', async () => {
    const zest = await startZest({ home: makeHome({ a: 'tiny' }) });
    await zest.json('/v1/chat/completions', chatBody('a'));
    const engines = descendants(zest.pid);
    assert.ok(engines.length > 0);
    await zest.stop('SIGTERM');
    await waitFor(() => engines.every((p) => !alive(p.pid)), { what: 'engines to exit' });
    zest.cleanup();
  });

  test('readiness: /ready is 200 while serving; SIGTERM turns it to 503 first and serves on for shutdown_delay_s', async () => {
    const zest = await startZest({ home: makeHome({ a: 'tiny' }), env: { ZEST_SHUTDOWN_DELAY: '10' } });
    let r = await zest.json('/ready');
    assert.equal(r.status, 200);
    assert.deepEqual(r.data, { status: 'ready' });
    assert.equal((await zest.json('/v1/chat/completions', chatBody('a', { max_tokens: 4 }))).status, 200);
    const exited = new Promise((resolve) => zest.proc.once('exit', (code) => resolve(code)));
    zest.proc.kill('SIGTERM');
    await waitFor(async () => (await zest.json('/ready')).status === 503, { timeout: 5000, what: '/ready to say draining' });
    r = await zest.json('/ready');
    assert.equal(r.data.status, 'draining');
    assert.match(r.data.reason, /shutting down/);
    assert.equal((await zest.json('/health')).status, 200, 'still alive');
    // Still serving: a balancer that has not checked yet loses nothing.
    const late = await zest.json('/v1/chat/completions', chatBody('a', { max_tokens: 4 }));
    assert.equal(late.status, 200);
    assert.equal(await exited, 0);
    zest.cleanup();
  });

  test('SIGTERM stops accepting, lets a running stream finish, then exits', async () => {
    const zest = await startZest({
      home: makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } }),
      args: ['--ctx-size', '32768', '--parallel', '1'],
      // 3000 tokens take 2-5 s here, but over 60 s under `stress -c 2` (two
      // engine threads meet at a barrier every token): the drain must
      // outlast them, and this test waits only as long as they take.
      env: { ZEST_DRAIN_TIMEOUT: '600' },
    });
    const s = await openStream(zest, chatBody('long', { max_tokens: 3000 }));
    const exited = new Promise((r) => zest.proc.once('exit', (code) => r(code)));
    zest.proc.kill('SIGTERM');
    await waitFor(() => /letting 1 request\(s\) finish/.test(zest.logs()), { what: 'the drain' });
    await assert.rejects(zest.fetch('/health'), 'no new connections while draining');
    let text = s.text;
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await s.reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    assert.match(text, /data: \[DONE\]/, 'the stream finished');
    assert.equal(await exited, 0);
    zest.cleanup();
  });

  test('at the drain deadline what still runs is cut off', async () => {
    const zest = await startZest({
      home: makeHome({ long: { preset: 'tiny', args: ['--context', '32768'] } }),
      args: ['--ctx-size', '32768', '--parallel', '1'],
      env: { ZEST_DRAIN_TIMEOUT: '1' },
    });
    const s = await openStream(zest, chatBody('long', { max_tokens: 30000 }));
    const t0 = Date.now();
    const exited = new Promise((r) => zest.proc.once('exit', (code) => r(code)));
    zest.proc.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(Date.now() - t0 < 10000, 'bounded by the deadline');
    assert.match(zest.logs(), /still running at the drain deadline/);
    s.abort();
    zest.cleanup();
  });

  test('SIGKILL of zest leaves no engine behind', async () => {
    const zest = await startZest({ home: makeHome({ a: 'tiny' }) });
    await zest.json('/v1/chat/completions', chatBody('a'));
    const engines = descendants(zest.pid);
    assert.ok(engines.some((p) => p.comm === 'llama-server'), JSON.stringify(engines));
    await zest.stop('SIGKILL');
    await waitFor(() => engines.every((p) => !alive(p.pid)), { what: 'orphaned engines to die' });
    zest.cleanup();
  });
});

// Field 22 of /proc/PID/stat: start time in clock ticks after boot.
const startTicks = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
};

describe('stale engines from a previous run', () => {
  test('a pid file records each engine; the next zest stops a stale engine still running', async () => {
    const home = makeHome({ a: 'tiny' });
    const pidDir = path.join(home, 'run', 'engines');
    const first = await startZest({ home });
    assert.equal((await first.json('/v1/chat/completions', chatBody('a'))).status, 200);
    const [file] = fs.readdirSync(pidDir);
    const record = JSON.parse(fs.readFileSync(path.join(pidDir, file), 'utf8'));
    assert.equal(file, `${record.pid}.json`);
    assert.equal(record.owner_pid, first.pid);
    assert.equal(record.start_ticks, startTicks(record.pid));
    assert.ok(descendants(first.pid).some((p) => p.pid === record.pid), 'the record names zest\'s engine');
    assert.equal(fs.statSync(path.join(pidDir, file)).mode & 0o777, 0o600);

    await first.stop('SIGKILL');  // no chance to stop its engine or remove its file
    await waitFor(() => !alive(record.pid), { what: 'PR_SET_PDEATHSIG to take the engine' });
    assert.ok(fs.existsSync(path.join(pidDir, file)), 'the killed zest left its pid file');

    // PR_SET_PDEATHSIG takes a real engine with its zest, so a stale engine
    // that survived is played by a stand-in: `sleep` in its own process
    // group, recorded as an engine of the killed zest.
    const standIn = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const standInSignal = new Promise((resolve) => standIn.once('exit', (code, signal) => resolve(signal)));
    await waitFor(() => alive(standIn.pid), { what: 'the stand-in to start' });
    const stale = { ...record, pid: standIn.pid, start_ticks: startTicks(standIn.pid), argv: ['sleep', '300'] };
    fs.writeFileSync(path.join(pidDir, `${standIn.pid}.json`), JSON.stringify(stale), { mode: 0o600 });
    // A live process whose start time does not match is someone else's.
    const bystander = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const reused = { ...stale, pid: bystander.pid, start_ticks: startTicks(bystander.pid) + 1 };
    fs.writeFileSync(path.join(pidDir, `${bystander.pid}.json`), JSON.stringify(reused), { mode: 0o600 });

    const second = await startZest({ home });
    try {
      assert.ok(!alive(standIn.pid), 'the stale stand-in was stopped before zest listened');
      assert.equal(await standInSignal, 'SIGTERM');
      assert.ok(alive(bystander.pid), 'a process that only shares the pid number is left alone');
      assert.match(second.logs(), new RegExp(`reaped a stale engine from a previous run: pid ${standIn.pid} \\(sleep\\)`));
      assert.match(second.logs(), new RegExp(`removed stale engine pid file .*${record.pid}\\.json \\(already gone\\)`));
      assert.deepEqual(fs.readdirSync(pidDir), [], 'every stale file removed');
      assert.equal((await second.json('/v1/chat/completions', chatBody('a'))).status, 200);
      const [fresh] = fs.readdirSync(pidDir);
      assert.equal(JSON.parse(fs.readFileSync(path.join(pidDir, fresh), 'utf8')).owner_pid, second.pid);
      await second.stop();
      assert.deepEqual(fs.readdirSync(pidDir), [], 'a clean stop removes the engine\'s file');
    } finally {
      await second.stop();
      bystander.kill('SIGKILL');
      second.cleanup();
    }
  });
});
