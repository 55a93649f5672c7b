// Chaos driver shared by tests/integration/chaos.test.mjs and bench/chaos.mjs:
// a bounded load of chat requests (streamed and not, over several models)
// against a running zest while engines are SIGKILLed at random, with every
// request's outcome classified and every kill's recovery timed.
import fs from 'node:fs';
import http from 'node:http';
import { descendants } from './zest.mjs';

// Open file descriptors of a process (/proc/PID/fd).
export const fdCount = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A zest error body: OpenAI's {"error": {"message", "type"}}.
const isErrorBody = (data) => typeof data?.error?.message === 'string' && typeof data.error.type === 'string';

// Whether an answer is whole: every request ignores end-of-generation, so
// a complete answer stops at its token budget ('length') and its usage
// counts exactly that many tokens, also when zest resumed it on another
// engine (a gap or a repeat at the seam would show in the count).
function whole(finishReason, usage, maxTokens) {
  if (finishReason !== 'length') return { kind: 'incomplete', detail: `finish_reason ${finishReason}` };
  if (usage?.completion_tokens !== maxTokens) {
    return { kind: 'incomplete', detail: `${usage?.completion_tokens} of ${maxTokens} tokens` };
  }
  return { kind: 'ok' };
}

// Sorts a finished response into ok / incomplete / a well-formed error / malformed.
function classify(status, contentType, text, stream, maxTokens) {
  if (!stream || !contentType.includes('text/event-stream')) {
    let data;
    try { data = JSON.parse(text); } catch { return { kind: 'malformed', detail: `${status}: ${text.slice(0, 200)}` }; }
    if (status === 200 && Array.isArray(data.choices) && data.choices.length) {
      return whole(data.choices[0].finish_reason, data.usage, maxTokens);
    }
    if (status >= 400 && isErrorBody(data)) return { kind: `http_${status}`, detail: data.error.message };
    return { kind: 'malformed', detail: `${status}: ${text.slice(0, 200)}` };
  }
  const events = text.split('\n\n').map((e) => e.split('\n').filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trimStart()).join('\n')).filter(Boolean);
  const payloads = [];
  for (const e of events) {
    if (e === '[DONE]') { payloads.push(e); continue; }
    try { payloads.push(JSON.parse(e)); } catch { return { kind: 'malformed', detail: `bad event: ${e.slice(0, 200)}` }; }
  }
  const errorAt = payloads.findIndex((p) => p !== '[DONE]' && p.error);
  if (errorAt >= 0) {
    const rest = payloads.slice(errorAt + 1);
    if (isErrorBody(payloads[errorAt]) && rest.every((p) => p === '[DONE]')) {
      return { kind: 'stream_error', detail: payloads[errorAt].error.message };
    }
    return { kind: 'malformed', detail: 'events after an error event' };
  }
  if (payloads.at(-1) === '[DONE]' && payloads.length > 1) {
    // One answer as the client sees it, even when engines were replaced
    // under it: one id, one role, one finish.
    const chunks = payloads.filter((p) => p !== '[DONE]');
    const ids = new Set(chunks.map((c) => c.id));
    const roles = chunks.filter((c) => c.choices?.[0]?.delta?.role).length;
    const finishes = chunks.filter((c) => c.choices?.[0]?.finish_reason).length;
    if (ids.size !== 1 || roles !== 1 || finishes !== 1) {
      return { kind: 'malformed', detail: `a seam: ${ids.size} ids, ${roles} roles, ${finishes} finishes` };
    }
    const finish = chunks.find((c) => c.choices?.[0]?.finish_reason).choices[0].finish_reason;
    return whole(finish, chunks.findLast((c) => c.usage)?.usage, maxTokens);
  }
  return { kind: 'malformed', detail: `stream ended without [DONE] or an error (${payloads.length} events)` };
}

const socketIds = new WeakMap();
let lastSocketId = 0;

// One chat request over `agent` (false: a connection of its own, closed after);
// resolves to {kind, detail, model, stream, start, end, sock} (sock numbers
// the client connection, so a lost request can be matched with the one
// before it on the same connection).
export function chatRequest(baseUrl, agent, { model, stream, maxTokens, timeoutMs = 60000 }) {
  const url = new URL('/v1/chat/completions', baseUrl);
  const body = JSON.stringify({
    model, stream, max_tokens: maxTokens, ignore_eos: true,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    messages: [{ role: 'user', content: 'Tell me something.' }],
  });
  const start = performance.now();
  return new Promise((resolve) => {
    let sock = 0;
    const done = (result) => resolve({ model, stream, start, end: performance.now(), sock, ...result });
    const req = http.request(url, {
      method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => done(classify(res.statusCode, res.headers['content-type'] ?? '',
        Buffer.concat(chunks).toString('utf8'), stream, maxTokens)));
      res.on('error', (err) => done({ kind: 'transport', detail: err.message }));
    });
    req.on('socket', (socket) => { socketIds.set(socket, socketIds.get(socket) ?? ++lastSocketId); sock = socketIds.get(socket); });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (err) => done({ kind: /no answer/.test(err.message) ? 'timeout' : 'transport', detail: err.message }));
    req.end(body);
  });
}

// The llama-server processes under zest, with the model each serves (from
// /api/v1/health: an instance's pid is the process zest spawned, bwrap or
// llama-server itself).
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

// Runs `requests` chat requests at `concurrency` over `models` (half of them
// streamed, at random) while a killer SIGKILLs a random engine every
// `killEveryMs` [min, max]. Returns {results, kills, seconds} where each kill
// has {at, pid, model, recoveredAt} (the end of the first later request for
// that model that started after the kill and succeeded).
export async function chaosRun(zest, {
  models, requests, concurrency, killEveryMs = [2000, 4000], maxTokens = [4, 24], timeoutMs = 60000,
}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const rand = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
  const results = [];
  const kills = [];
  let next = 0;
  let running = true;
  const t0 = performance.now();
  const killer = (async () => {
    while (running) {
      await sleep(rand(killEveryMs[0], killEveryMs[1]));
      if (!running) break;
      const live = await engines(zest).catch(() => []);
      if (!live.length) continue;
      const victim = live[rand(0, live.length - 1)];
      try { process.kill(victim.pid, 'SIGKILL'); } catch { continue; }
      kills.push({ at: performance.now(), pid: victim.pid, model: victim.model, recoveredAt: null });
    }
  })();
  const worker = async () => {
    while (next < requests) {
      next++;
      const model = models[rand(0, models.length - 1)];
      const stream = Math.random() < 0.5;
      results.push(await chatRequest(zest.url, agent, { model, stream, maxTokens: rand(maxTokens[0], maxTokens[1]), timeoutMs }));
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    running = false;
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
