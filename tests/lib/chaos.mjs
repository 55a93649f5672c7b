// Chaos driver shared by tests/integration/chaos.test.mjs and bench/chaos.mjs:
// a load of chat requests in every API zest serves (OpenAI chat, Anthropic
// Messages, OpenAI Responses, Ollama chat; streamed and not) over several
// models against a running zest while engines are SIGKILLed at random, with
// every request's outcome classified in its own API's shape, its timing
// kept, and every kill's recovery timed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { descendants } from './zest.mjs';

// Open file descriptors of a process (/proc/PID/fd).
export const fdCount = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The APIs a chaos run sends, in the order a mix takes them.
export const APIS = ['openai', 'anthropic', 'responses', 'ollama'];

const PROMPT = 'Tell me something.';

// Each API's route and body for one chat request. Only OpenAI's chat takes
// llama-server's `ignore_eos`; the others' answers may stop early (their
// stop reason says so).
function requestFor(api, { model, stream, maxTokens }) {
  const user = [{ role: 'user', content: PROMPT }];
  switch (api) {
    case 'openai':
      return { path: '/v1/chat/completions', body: {
        model, stream, max_tokens: maxTokens, ignore_eos: true, messages: user,
        ...(stream ? { stream_options: { include_usage: true } } : {}) } };
    case 'anthropic':
      return { path: '/v1/messages', body: { model, stream, max_tokens: maxTokens, messages: user } };
    case 'responses':
      return { path: '/v1/responses', body: { model, stream, max_output_tokens: maxTokens, input: PROMPT, store: false } };
    case 'ollama':
      return { path: '/api/chat', body: { model, stream, messages: user, options: { num_predict: maxTokens } } };
    default:
      throw new Error(`no such API: ${api}`);
  }
}

const ok = { kind: 'ok' };
const malformed = (detail) => ({ kind: 'malformed', detail });
const incomplete = (detail) => ({ kind: 'incomplete', detail });
const isString = (x) => typeof x === 'string';

// Whether an answer is whole: `limited` (it stopped at its token budget)
// with exactly that many tokens, or stopped on its own with no more than
// that. An answer zest resumed on another engine counts the same way (a
// gap or a repeat at the seam would show in the count where the answer ran
// its whole budget: OpenAI's, which ignores end-of-generation).
function whole(limited, stopped, tokens, maxTokens, reason) {
  if (!limited && !stopped) return incomplete(`stop reason ${reason}`);
  if (!Number.isInteger(tokens)) return incomplete(`no token count (${reason})`);
  if (limited ? tokens !== maxTokens : tokens > maxTokens) return incomplete(`${tokens} of ${maxTokens} tokens (${reason})`);
  return ok;
}

// The error bodies, each in its own API's shape.
const errorBody = {
  // {"error": {"message", "type"}} (OpenAI's, also the Responses API's)
  openai: (d) => isString(d?.error?.message) && isString(d.error.type),
  responses: (d) => isString(d?.error?.message) && isString(d.error.type),
  anthropic: (d) => d?.type === 'error' && isString(d.error?.message) && isString(d.error.type),
  ollama: (d) => isString(d?.error),
};

// A whole non-streamed answer, in each API's shape.
const wholeAnswer = {
  openai(d, max) {
    if (!Array.isArray(d.choices) || !d.choices.length) return malformed('no choices');
    const reason = d.choices[0].finish_reason;
    return whole(reason === 'length', false, d.usage?.completion_tokens, max, reason);
  },
  anthropic(d, max) {
    if (d.type !== 'message' || d.role !== 'assistant' || !Array.isArray(d.content)) return malformed('not a message');
    return whole(d.stop_reason === 'max_tokens', d.stop_reason === 'end_turn', d.usage?.output_tokens, max, d.stop_reason);
  },
  responses(d, max) {
    if (d.object !== 'response' || !Array.isArray(d.output)) return malformed('not a response');
    const limited = d.status === 'incomplete' && d.incomplete_details?.reason === 'max_output_tokens';
    return whole(limited, d.status === 'completed', d.usage?.output_tokens, max, d.status);
  },
  ollama(d, max) {
    if (d.done !== true || d.message?.role !== 'assistant' || !isString(d.message.content)) return malformed('not a done chat');
    return whole(d.done_reason === 'length', d.done_reason === 'stop', d.eval_count, max, d.done_reason);
  },
};

// SSE text as events [{event, data}] (comments, such as zest's wait
// heartbeat, and events without data dropped); data parsed as JSON except
// OpenAI's "[DONE]". Throws on data that is not JSON.
function sseEvents(text) {
  const out = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n');
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
    if (!data) continue;
    const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim() ?? '';
    out.push({ event, data: data === '[DONE]' ? data : JSON.parse(data) });
  }
  return out;
}

// A stream that ends with its API's error event, and nothing after it.
function streamError(api, payloads, isError) {
  const at = payloads.findIndex(isError);
  if (at < 0) return null;
  if (at !== payloads.length - 1 && !(api === 'openai' && payloads.slice(at + 1).every((p) => p === '[DONE]'))) {
    return malformed('events after an error event');
  }
  const p = payloads[at];
  const message = api === 'ollama' ? p.error : api === 'responses' ? p.message : p.error?.message;
  return isString(message) ? { kind: 'stream_error', detail: message } : malformed(`an error event without a message: ${JSON.stringify(p)}`);
}

// A whole stream, in each API's shape: one answer as the client sees it,
// even when engines were replaced under it (one id, one start, one finish).
const wholeStream = {
  openai(text, max) {
    const payloads = sseEvents(text).map((e) => e.data);
    const error = streamError('openai', payloads, (p) => p !== '[DONE]' && p.error);
    if (error) return error;
    if (payloads.at(-1) !== '[DONE]' || payloads.length < 2) return malformed(`no [DONE] (${payloads.length} events)`);
    const chunks = payloads.filter((p) => p !== '[DONE]');
    const ids = new Set(chunks.map((c) => c.id));
    const roles = chunks.filter((c) => c.choices?.[0]?.delta?.role).length;
    const finishes = chunks.filter((c) => c.choices?.[0]?.finish_reason);
    if (ids.size !== 1 || roles !== 1 || finishes.length !== 1) {
      return malformed(`a seam: ${ids.size} ids, ${roles} roles, ${finishes.length} finishes`);
    }
    const reason = finishes[0].choices[0].finish_reason;
    return whole(reason === 'length', false, chunks.findLast((c) => c.usage)?.usage?.completion_tokens, max, reason);
  },
  anthropic(text, max) {
    const events = sseEvents(text);
    const error = streamError('anthropic', events.map((e) => e.data), (p) => p.type === 'error');
    if (error) return error;
    const types = events.map((e) => e.data.type);
    if (events.some((e) => e.event !== e.data.type)) return malformed('an event named unlike its type');
    const count = (t) => types.filter((x) => x === t).length;
    if (types[0] !== 'message_start' || types.at(-1) !== 'message_stop' || count('message_start') !== 1 ||
        count('message_delta') !== 1 || count('message_stop') !== 1) {
      return malformed(`a seam or an end missing: ${types.filter((t) => t !== 'content_block_delta').join(' ')}`);
    }
    const delta = events.find((e) => e.data.type === 'message_delta').data;
    const reason = delta.delta?.stop_reason;
    return whole(reason === 'max_tokens', reason === 'end_turn', delta.usage?.output_tokens, max, reason);
  },
  responses(text, max) {
    const events = sseEvents(text);
    const error = streamError('responses', events.map((e) => e.data), (p) => p.type === 'error');
    if (error) return error;
    const types = events.map((e) => e.data.type);
    const finals = events.filter((e) => ['response.completed', 'response.incomplete'].includes(e.data.type));
    if (types[0] !== 'response.created' || types.filter((t) => t === 'response.created').length !== 1 ||
        finals.length !== 1 || finals[0] !== events.at(-1)) {
      return malformed(`a seam or an end missing: ${types.filter((t) => t !== 'response.output_text.delta').join(' ')}`);
    }
    const response = finals[0].data.response;
    if (response?.id !== events[0].data.response?.id) return malformed('two response ids');
    return wholeAnswer.responses(response, max);
  },
  ollama(text, max) {
    const lines = text.split('\n').filter((l) => l.trim());
    const payloads = lines.map((l) => JSON.parse(l));
    const error = streamError('ollama', payloads, (p) => p.error !== undefined);
    if (error) return error;
    const done = payloads.filter((p) => p.done === true);
    if (done.length !== 1 || payloads.at(-1) !== done[0]) return malformed(`${done.length} done lines, the last ${lines.at(-1)}`);
    const last = done[0];
    return whole(last.done_reason === 'length', last.done_reason === 'stop', last.eval_count, max, last.done_reason);
  },
};

// Sorts a finished response into ok / incomplete / a well-formed error
// (http_STATUS, stream_error) / malformed, in `api`'s shape.
export function classify(api, status, contentType, text, stream, maxTokens) {
  const streamed = stream && status === 200 &&
    (contentType.includes('text/event-stream') || contentType.includes('application/x-ndjson'));
  try {
    if (streamed) return wholeStream[api](text, maxTokens);
    const data = JSON.parse(text);
    if (status === 200) return wholeAnswer[api](data, maxTokens);
    if (status >= 400 && errorBody[api](data)) {
      return { kind: `http_${status}`, detail: api === 'ollama' ? data.error : data.error.message };
    }
  } catch (err) {
    return malformed(`${status}: ${err.message}: ${text.slice(0, 200)}`);
  }
  return malformed(`${status}: ${text.slice(0, 200)}`);
}

// Whether `text` (what a stream has sent so far) holds more than SSE
// comments: an event, an NDJSON line, an error body.
const hasEvent = (text) => text.split('\n').some((l) => l.trim() && !l.startsWith(':'));

const socketIds = new WeakMap();
let lastSocketId = 0;

// One chat request in `api`'s shape over `agent` (false: a connection of
// its own, closed after), with `headers` (e.g. X-Queue-Timeout); resolves
// to {kind, detail, api, model, stream, status, retryAfter, start, first,
// end, sock}: `first` when its first byte other than a heartbeat comment
// came (null: none), `retryAfter` its Retry-After header (null: none),
// `sock` numbers the client connection (so a lost request can be matched
// with the one before it on the same connection). `timeoutMs`: the client
// gives up after that long without a byte.
export function chatRequest(baseUrl, agent, { api = 'openai', model, stream, maxTokens, headers = {}, timeoutMs = 60000 }) {
  const { path, body: json } = requestFor(api, { model, stream, maxTokens });
  const body = JSON.stringify(json);
  const start = performance.now();
  return new Promise((resolve) => {
    let sock = 0;
    let status = 0;
    let retryAfter = null;
    let first = null;
    const done = (result) => resolve({ api, model, stream, status, retryAfter, start, first, end: performance.now(), sock, ...result });
    const req = http.request(new URL(path, baseUrl), {
      method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      status = res.statusCode;
      retryAfter = res.headers['retry-after'] ?? null;
      const chunks = [];
      res.on('data', (d) => {
        chunks.push(d);
        if (first === null && hasEvent(Buffer.concat(chunks).toString('utf8'))) first = performance.now();
      });
      res.on('end', () => done(classify(api, res.statusCode, res.headers['content-type'] ?? '',
        Buffer.concat(chunks).toString('utf8'), stream, maxTokens)));
      res.on('error', (err) => done({ kind: 'transport', detail: err.message }));
    });
    req.on('socket', (socket) => { socketIds.set(socket, socketIds.get(socket) ?? ++lastSocketId); sock = socketIds.get(socket); });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no byte in ${timeoutMs} ms`)));
    req.on('error', (err) => done({ kind: /no byte in/.test(err.message) ? 'timeout' : 'transport', detail: err.message }));
    req.end(body);
  });
}

// The llama-server processes under zest, loading or ready, with the model
// each serves (from /api/v1/health: an instance's pid is the process zest
// spawned, bwrap or llama-server itself).
export async function engines(zest) {
  const health = await (await fetch(`${zest.url}/api/v1/health`)).json();
  const out = [];
  for (const instance of health.instances) {
    const tree = [{ pid: instance.pid, comm: '' }, ...descendants(instance.pid)];
    for (const p of tree) {
      let comm = p.comm;
      if (!comm) { try { comm = fs.readFileSync(`/proc/${p.pid}/comm`, 'utf8').trim(); } catch { continue; } }
      if (comm === 'llama-server') out.push({ pid: p.pid, model: instance.model, instance: instance.pid });
    }
  }
  return out;
}

// Runs chat requests at `concurrency` over `models` and `apis` (OpenAI chat
// unless given): each request's model and API at random, half of them
// streamed, while a killer SIGKILLs a random engine every `killEveryMs`
// [min, max], or sooner once `killEveryRequests` [min, max] requests have
// ended since the last kill (so the kills keep up with a faster machine's
// answers): `requests` of them, or as many as start within `durationMs`.
// `headers` go with every request. Returns {results, kills, seconds} where
// each kill has {at, pid, model, recoveredAt} (the end of the first later
// request for that model that started after the kill and succeeded).
export async function chaosRun(zest, {
  models, apis = ['openai'], requests = Infinity, durationMs = Infinity, concurrency, killEveryMs = [800, 2000],
  killEveryRequests = [Infinity, Infinity], maxTokens = [4, 24], headers = {}, timeoutMs = 60000,
}) {
  if (requests === Infinity && durationMs === Infinity) throw new Error('chaosRun: give requests or durationMs');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const rand = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
  const results = [];
  const kills = [];
  let started = 0;
  let running = true;
  const t0 = performance.now();
  // Wakes the killer when a request ends, to count them against its quota.
  let wake = () => {};
  const ended = () => new Promise((resolve) => { wake = resolve; });
  const killer = (async () => {
    while (running) {
      const due = performance.now() + rand(killEveryMs[0], killEveryMs[1]);
      const quota = killEveryRequests[0] === Infinity ? Infinity : rand(killEveryRequests[0], killEveryRequests[1]);
      const endedBefore = results.length;
      while (running && performance.now() < due && results.length - endedBefore < quota) {
        // The kill schedule is the workload's own clock (a kill every
        // killEveryMs), not a wait for the server: hence a timer, raced
        // with the requests ending that count against the quota.
        await Promise.race([sleep(due - performance.now()), ended()]);
      }
      if (!running) break;
      const live = await engines(zest).catch(() => []);
      // Every engine is down (killed, reloading): the next kill waits for
      // the next request to end rather than polling for an engine.
      if (!live.length) { await ended(); continue; }
      const victim = live[rand(0, live.length - 1)];
      try { process.kill(victim.pid, 'SIGKILL'); } catch { continue; }
      kills.push({ at: performance.now(), pid: victim.pid, model: victim.model, recoveredAt: null });
    }
  })();
  const more = () => started < requests && performance.now() - t0 < durationMs;
  const worker = async () => {
    while (more()) {
      started++;
      const model = models[rand(0, models.length - 1)];
      const api = apis[rand(0, apis.length - 1)];
      const stream = Math.random() < 0.5;
      results.push(await chatRequest(zest.url, agent,
        { api, model, stream, maxTokens: rand(maxTokens[0], maxTokens[1]), headers, timeoutMs }));
      wake();
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    running = false;
    wake();
    await killer;
    agent.destroy();  // zest's fd count is compared with its baseline afterwards
  }
  for (const kill of kills) {
    const recovered = results.filter((r) => r.kind === 'ok' && r.model === kill.model && r.start >= kill.at)
      .sort((a, b) => a.end - b.end)[0];
    kill.recoveredAt = recovered ? recovered.end : null;
  }
  return { results, kills, seconds: (performance.now() - t0) / 1000 };
}

// {kind: count} over results.
export function countKinds(results) {
  const counts = {};
  for (const r of results) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  return counts;
}

// Outcomes that are no answer and no well-formed error.
export const BROKEN = ['malformed', 'incomplete', 'transport', 'timeout'];

// One line per result, for an assertion's message.
export const outcomeLine = (r) => `${r.api}${r.stream ? ' stream' : ''} ${r.kind} after ${((r.end - r.start) / 1000).toFixed(1)} s: ${r.detail}`;

// What zest promises of every request's time (docs/reliability.md): by its
// deadline (`deadlineMs`, scheduler.queue_timeout_s or X-Queue-Timeout
// from its arrival) its answer has begun or it has ended with an error;
// once begun, the answer takes its own time (`answerMs` at most, what the
// caller allows one answer of its size) and no more waiting for engines.
// So a stream's first event comes by the deadline, and every request ends
// by the deadline and one answer's time; `slackMs` is the timers' and the
// loaded machine's lateness. Returns the results that broke the promise,
// each with why.
export function pastDeadline(results, { deadlineMs, answerMs, slackMs }) {
  const late = [];
  for (const r of results) {
    const took = r.end - r.start;
    if (r.stream && r.first !== null && r.first - r.start > deadlineMs + slackMs) {
      late.push({ ...r, why: `first event after ${((r.first - r.start) / 1000).toFixed(1)} s` });
    } else if (took > deadlineMs + answerMs + slackMs || BROKEN.slice(2).includes(r.kind)) {
      late.push({ ...r, why: `ended after ${(took / 1000).toFixed(1)} s` });
    }
  }
  return late;
}

// HTTP errors without a Retry-After: every error a chaos run gets is the
// server's (an engine gone, a deadline passed), which a client may retry.
export const withoutRetryAfter = (results) =>
  results.filter((r) => /^http_/.test(r.kind) && (r.retryAfter === null || !(Number(r.retryAfter) >= 1)));

// `stress -c cpus` (Debian's stress: a worker spinning on sqrt per CPU)
// beside a run, in a process group of its own; stop() ends that group.
export function startStress(cpus = 1) {
  const proc = spawn('stress', ['-c', String(cpus)], { stdio: 'ignore', detached: true });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return {
    proc,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* already gone */ }
      }
      await exited;
    },
  };
}

// What zest's metrics say of the run: failures by phase
// (zest_request_failures_total) and engines that broke off a request, by
// phase and what zest did then (zest_engine_breaks_total), summed over
// models: {failures: {phase: n}, breaks: {"phase then": n}}.
export async function phases(zest) {
  const text = await (await fetch(`${zest.url}/metrics`)).text();
  const sum = (name, key) => {
    const out = {};
    for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\d+)$`, 'gm'))) {
      const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k, v]));
      const k = key(labels);
      out[k] = (out[k] ?? 0) + Number(m[2]);
    }
    return out;
  };
  return {
    failures: sum('zest_request_failures_total', (l) => l.phase),
    breaks: sum('zest_engine_breaks_total', (l) => `${l.phase} ${l.then}`),
  };
}
