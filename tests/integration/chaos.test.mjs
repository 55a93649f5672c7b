// Chaos: for a fixed time, chat requests in every API zest serves (OpenAI
// chat, Anthropic Messages, Responses, Ollama chat), streamed and not, over
// two models while engines are SIGKILLed at random about once a second.
// Every request must end in a whole answer (also when resumed on another
// engine) or its own API's well-formed error (an error body with
// Retry-After, or the stream's error event once it had started); the
// engines must be killed at least once per 100 requests and fewer requests
// may fail than engines were killed; zest must stay up, and afterwards no
// engine process and no file descriptor may be left over. Then the same
// beside a CPU hog (`stress -c 1`, both cores busy) with a short deadline:
// every request must end within what docs/reliability.md promises of it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import {
  APIS, BROKEN, chaosRun, chatRequest, countKinds, engines, fdCount, outcomeLine, pastDeadline, startStress,
  withoutRetryAfter,
} from '../lib/chaos.mjs';
import { needs } from '../lib/requirements.mjs';
import { descendants, makeHome, startZest, waitFor } from '../lib/zest.mjs';

const MODELS = ['a', 'b'];
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.CHAOS_CONCURRENCY ?? 16);
// A kill every 0.5-1.2 s over answers of 64-192 tokens, and never more
// than 25-60 requests between kills: by time alone, 2,363 requests in 20 s
// met 23 kills on CI's machine, under one per 100; with the request quota
// this machine's two cores see about 45 kills in 2,200 requests.
const KILL_MS = [500, 1200];
const KILL_REQUESTS = [25, 60];
const MAX_TOKENS = [64, 192];
// Descriptors zest may hold above its baseline afterwards (log files
// reopened, a timer or two): a leak per request or per kill is far more.
const FD_SLACK = 8;

// The CPU-hog run's models: tiny ones whose engines load as slowly as the
// bench model's (2 s here on a quiet machine: a 640 MiB KV cache, 5 slots
// of 65,536 tokens, to clear) and answer as fast as tiny (192 tokens in
// well under a second), so kills catch engines while they load, as in
// issue 45's run.
const SLOW_LOAD = { preset: 'tiny', args: ['--layers', '8', '--kv-heads', '4', '--context', '65536'] };
const SLOW_CTX = '65536';
// Its deadline (scheduler.queue_timeout_s), what one answer may take beside
// the hog once it has begun, and the lateness of timers on a loaded machine.
const DEADLINE_S = 8;
// Its kills: faster than those engines load beside the hog, so requests
// wait on loads that are killed again and again (issue 45's run on a busy
// machine); CHAOS_HOG_KILL_MS=MIN,MAX for another rate.
const HOG_KILL_MS = (process.env.CHAOS_HOG_KILL_MS ?? '250,700').split(',').map(Number);
const ANSWER_MS = 5000;
const SLACK_MS = 3000;

const hasStress = (() => {
  try { execFileSync('stress', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
})();

const summary = (run) => `${run.results.length} requests in ${run.seconds.toFixed(1)} s, ${run.kills.length} kills, ` +
  JSON.stringify(countKinds(run.results));

// What both runs assert of each request's outcome.
function assertWellFormed(run) {
  const bad = run.results.filter((r) => BROKEN.includes(r.kind));
  assert.deepEqual(bad.map(outcomeLine), [], 'every request ends whole or as a well-formed error');
  // Errors are the engine's death or the deadline, said so.
  for (const r of run.results.filter((x) => x.kind !== 'ok')) {
    assert.match(r.kind, /^(http_50[0234]|stream_error)$/, outcomeLine(r));
  }
  assert.deepEqual(withoutRetryAfter(run.results).map(outcomeLine), [], 'every HTTP error says when to retry');
}

// The mix really ran: answers in every API, streamed and not.
function assertMix(run) {
  for (const api of APIS) {
    for (const stream of [false, true]) {
      const n = run.results.filter((r) => r.api === api && r.stream === stream && r.kind === 'ok').length;
      assert.ok(n > 0, `no whole ${api}${stream ? ' stream' : ' answer'} in the run`);
    }
  }
}

describe('chaos: engines killed under load', () => {
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({ a: 'tiny', b: 'tiny' }),
      args: ['--parallel', '4'],
      // Default supervision: kills from outside are never held off.
      env: { ZEST_LOG_LEVEL: 'info' },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('every request in every API ends whole or well-formed, fewer fail than engines die, nothing leaks', async () => {
    const warm = await Promise.all(MODELS.map((model) => chatRequest(zest.url, false, { model, stream: false, maxTokens: 4 })));
    assert.deepEqual(warm.map((r) => r.kind), ['ok', 'ok']);
    const baselineFds = fdCount(zest.pid);
    const firstEngines = (await engines(zest)).map((e) => e.pid);

    const run = await chaosRun(zest, { models: MODELS, durationMs: SECONDS * 1000, concurrency: CONCURRENCY,
                                       apis: APIS, killEveryMs: KILL_MS, killEveryRequests: KILL_REQUESTS,
                                       maxTokens: MAX_TOKENS });
    console.log(`chaos: ${summary(run)}`);

    assert.equal(zest.proc.exitCode, null, 'zest is still running');
    assert.equal(zest.proc.signalCode, null, 'zest is still running');
    assertWellFormed(run);
    assertMix(run);
    // The load is harsh enough to mean something: an engine killed at
    // least once per 100 requests, the warm ones among them.
    assert.ok(run.kills.length >= run.results.length / 100,
      `${run.kills.length} kills for ${run.results.length} requests (at least one per 100)`);
    assert.ok(run.kills.some((k) => firstEngines.includes(k.pid)), 'the warm engines were among the victims');
    // What docs/reliability.md promises: a request with no byte of its
    // answer is tried on fresh engines until its deadline, and a chat
    // stream broken mid-answer goes on from a fresh engine, whole. So a
    // request fails only when engines die under it again and again: fewer
    // of them than engines were killed.
    const failed = run.results.filter((r) => r.kind !== 'ok');
    assert.ok(failed.length <= run.kills.length,
      `${failed.length} failed for ${run.kills.length} kills: ${failed.map(outcomeLine).join('; ')}`);

    // No engine beyond the live instances: one spawned process (and one
    // llama-server) per instance zest reports.
    await waitFor(async () => {
      const health = await (await fetch(`${zest.url}/api/v1/health`)).json();
      const tree = descendants(zest.pid);
      const servers = tree.filter((p) => p.comm === 'llama-server').map((p) => p.pid).sort();
      const underInstances = (await engines(zest)).map((e) => e.pid).sort();
      return servers.length === health.instances.length && servers.join() === underInstances.join() &&
        tree.every((p) => p.comm === 'bwrap' || p.comm === 'llama-server');
    }, { timeout: 10000, what: 'engine processes to match the live instances' });

    // The next requests all succeed, on every model and in every API.
    const next = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      chatRequest(zest.url, false, { api: APIS[i % 4], model: MODELS[i % 2], stream: i % 3 === 0, maxTokens: 8 })));
    assert.deepEqual(next.map((r) => r.kind), Array(16).fill('ok'), JSON.stringify(next.map(outcomeLine)));

    // Client connections closed: zest's descriptors back near the baseline.
    await waitFor(() => fdCount(zest.pid) <= baselineFds + FD_SLACK,
      { timeout: 10000, what: `zest's fds (${fdCount(zest.pid)}) back near the baseline (${baselineFds})` });
  });
});

describe('chaos beside a CPU hog: every request ends by its deadline', { skip: needs(hasStress, 'stress (Debian package)') }, () => {
  let zest;
  let hog;
  before(async () => {
    zest = await startZest({
      home: makeHome({ a: SLOW_LOAD, b: SLOW_LOAD }),
      args: ['--parallel', '4'],
      env: { ZEST_LOG_LEVEL: 'info', ZEST_QUEUE_TIMEOUT: String(DEADLINE_S), ZEST_CTX_SIZE: SLOW_CTX },
    });
    hog = startStress(1);
  });
  after(async () => {
    await hog?.stop();
    await zest?.stop();
    zest?.cleanup();
  });

  test(`answered, or an error with Retry-After, within ${DEADLINE_S} s and one answer's time; never silence`, async () => {
    const warm = await Promise.all(MODELS.map((model) => chatRequest(zest.url, false, { model, stream: false, maxTokens: 4 })));
    assert.deepEqual(warm.map((r) => r.kind), ['ok', 'ok']);
    // The client waits well past the promise, so a request zest leaves
    // hanging shows as one (a timeout), not as the client's own give-up.
    const deadlineMs = DEADLINE_S * 1000;
    const run = await chaosRun(zest, { models: MODELS, durationMs: SECONDS * 1000, concurrency: CONCURRENCY,
                                       apis: APIS, killEveryMs: HOG_KILL_MS, maxTokens: MAX_TOKENS,
                                       timeoutMs: 3 * (deadlineMs + ANSWER_MS + SLACK_MS) });
    console.log(`chaos beside stress -c 1: ${summary(run)}`);
    assert.equal(zest.proc.exitCode, null, 'zest is still running');
    const late = pastDeadline(run.results, { deadlineMs, answerMs: ANSWER_MS, slackMs: SLACK_MS });
    assert.deepEqual(late.map((r) => `${r.why}: ${outcomeLine(r)}`), [],
      `every request's answer begins by ${DEADLINE_S} s or it ends with an error`);
    assertWellFormed(run);
    assert.ok(run.results.some((r) => r.kind === 'ok'), 'some requests were answered');
  });
});
