// Recorded fixtures (`make record-agents`): after a passing turn, what a
// client sent to zest is written as tests/fixtures/agents/<client>.json,
// which tests/integration/agent_fixtures.test.mjs replays against zest
// without the clients installed.
//
// A fixture keeps every request in the order it arrived (a client that
// sends two at once, as opencode its title request beside its turn, may
// swap them from one recording to the next), each body whole (the real
// sizes are the point), and the headers that say which API and client it
// is; it leaves out what would tie it to the machine or the run that
// recorded it: the clients see the scratch project and HOME at the
// sandbox's fixed /scratch and /home/agent (lib/sandbox.mjs), and any path
// of the test's own directories that still shows becomes those (also where
// a client writes them with '-' for '/', or one relative to the other), the
// host name and the user's become "host" and "user" (root's excepted: see
// redactor), and ids that are random per run
// (UUIDs, 64- and 32-hex ids, tool call ids) become numbered placeholders,
// so that a fresh recording differs from the last where the client changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_HOME, SCRATCH } from './sandbox.mjs';

export const PROJECT = SCRATCH;
export const HOME = AGENT_HOME;

// The headers a fixture keeps: the content type, the API's version and
// betas and who the client says it is. Credentials never reach the recording
// (tests/lib/recording_proxy.mjs drops them); the rest (host, lengths,
// session ids, the SDK's runtime details) say nothing zest acts on.
const KEPT_HEADERS = new Set(['accept', 'anthropic-beta', 'anthropic-version', 'content-type', 'openai-beta',
  'originator', 'user-agent', 'x-app']);

// The pinned version of `pkg` as installed in tests/agents/node_modules.
export function installedVersion(modules, pkg) {
  return JSON.parse(fs.readFileSync(path.join(modules, pkg, 'package.json'), 'utf8')).version;
}

// Writes `dir`/<file>.json for `client` (its display name) from the
// recording proxy's `requests`, made in `work` with HOME `home`; returns its
// path.
export function writeFixture(dir, { client, pkg, version, file, requests, work, home }) {
  const redact = redactor({ work, home });
  const kept = requests.map((r) => ({
    method: r.method,
    path: r.path,
    headers: Object.fromEntries(Object.entries(r.headers).filter(([name]) => KEPT_HEADERS.has(name)).sort()),
    body: sortedMetadata(r.body),
  }));
  const fixture = {
    client,
    package: pkg,
    version,
    recorded: new Date().toISOString().slice(0, 10),
    about: about(client, version),
    requests: stableCallIds(JSON.parse(redact(JSON.stringify(kept)))),
  };
  const out = path.join(dir, `${file}.json`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(fixture, null, 1)}\n`);
  return out;
}

// What a fixture says of itself.
export function about(client, version) {
  return `One headless turn of ${client} ${version} (its test in tests/agents/: in a sandbox, a scratch project ` +
    `at ${PROJECT} holding a.txt and b.txt, an empty HOME at ${HOME}, the model "coder", zest-make-model's ` +
    'tiny-file-reader) in which the model called the client\'s read tool on a.txt, the client sent the file\'s ' +
    'content back and the model answered: every request it sent to zest, in order, recorded by ' +
    '`make record-agents` through tests/lib/recording_proxy.mjs. Redacted: the test\'s own paths (should one ' +
    `show) as ${PROJECT} and ${HOME}, the host name "host", the user's name "user" (unless root), ` +
    'UUIDs and 64-hex ids numbered placeholders; headers other than content type, accept, API version and ' +
    "betas and the client's own name are left out (credentials are never recorded). Bodies are whole.";
}

// `body` with its client_metadata's keys sorted: Codex writes it from a
// hash map, in a new order each run (and ids are numbered in the order they
// appear).
function sortedMetadata(body) {
  const metadata = body?.client_metadata;
  if (!metadata || typeof metadata !== 'object') return body;
  return { ...body, client_metadata: Object.fromEntries(Object.entries(metadata).sort()) };
}

// `requests` with the ids of tool calls (random, from the engine's answer,
// then sent back with the call and its result) as call_1, call_2, ...
// (toolu_1 where they had that prefix).
function stableCallIds(requests) {
  const ids = new Map();
  for (const [key, value] of entries(requests)) {
    if (['call_id', 'tool_call_id', 'tool_use_id'].includes(key) && typeof value === 'string' && !ids.has(value)) {
      ids.set(value, `${/^[a-z]+_/.exec(value)?.[0] ?? 'call_'}${ids.size + 1}`);
    }
  }
  return replaceStrings(requests, ids);  // the call's own id, too
}

// Every [key, value] pair under `value`, depth first.
function* entries(value) {
  if (Array.isArray(value)) {
    for (const v of value) yield* entries(v);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield [k, v];
      yield* entries(v);
    }
  }
}

// `value` with each string that `map` holds replaced by what it maps to.
function replaceStrings(value, map) {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceStrings(v, map));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceStrings(v, map)]));
  }
  return value;
}

// A function that redacts the JSON text of requests (a replacement must not
// bring in a quote or a backslash: none does).
function redactor({ work, home }) {
  const pairs = [];
  const place = (real, placeholder) => {
    for (const p of new Set([real, fs.realpathSync(real)])) {
      pairs.push([p, placeholder]);
      pairs.push([p.replace(/[^A-Za-z0-9]/g, '-'), placeholder.replace(/[^A-Za-z0-9]/g, '-')]);
    }
  };
  place(work, PROJECT);
  place(home, HOME);
  pairs.push([path.relative(work, home), path.relative(PROJECT, HOME)]);
  pairs.push([path.relative(home, work), path.relative(HOME, PROJECT)]);
  // Last, whatever else names the two directories (their random suffixes).
  pairs.push([path.basename(work), path.basename(PROJECT)]);
  pairs.push([path.basename(home), path.basename(HOME)]);
  // Longest first, so that no shorter form cuts a longer one in two.
  pairs.sort((a, b) => b[0].length - a[0].length);
  const words = [[os.hostname(), 'host'], [os.userInfo().username, 'user']]
    // "root" also reads as a word ("the root cause", Codex's "/root" agent);
    // HOME, where a user's name would show, is the placeholder already.
    .filter(([word]) => word && word !== 'root');
  return (text) => {
    for (const [from, to] of pairs) text = text.split(from).join(to);
    for (const [word, to] of words) text = text.replace(new RegExp(`\\b${escape(word)}\\b`, 'g'), to);
    // Not \b: an id may follow a prefix such as "msg_".
    text = numbered(text, /(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/gi,
      (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
    // 64 hex: Claude Code's device id; 32: ids zest made for items that
    // come back (Responses' fc_...).
    text = numbered(text, /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/gi, (n) => String(n).padStart(64, '0'));
    return numbered(text, /(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])/gi, (n) => String(n).padStart(32, '0'));
  };
}

// `text` with each distinct match of `re` replaced by placeholder(n), n
// counting distinct values from 1 in order of first appearance.
function numbered(text, re, placeholder) {
  const seen = new Map();
  return text.replace(re, (m) => {
    if (!seen.has(m)) seen.set(m, placeholder(seen.size + 1));
    return seen.get(m);
  });
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
