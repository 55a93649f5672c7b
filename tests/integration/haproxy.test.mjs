// Two zest nodes behind Debian's HAProxy with the config `zest
// haproxy-config` prints: every request answered, each model loaded on one
// node only (model affinity), a SIGTERMed node loses no request (it turns
// /ready to 503, serves on, then drains), a SIGKILLed node loses no request
// either (HAProxy retries what got no byte on the other node), and it gets its
// models back when it returns; conversations of one model that name a
// session spread over both nodes, each staying on its node. Real HAProxy, real zest, real llama-server.
// As root each node runs in a network namespace of its own, reached over a
// veth pair (10.231.N.0/24), so the traffic crosses real interfaces and the
// nodes listen beyond loopback with an API key, as in production; without
// root, on loopback.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hasIp, isRoot, makeNamespace, removeNamespace } from '../lib/netns.mjs';
import { needs } from '../lib/requirements.mjs';
import { freePort } from '../lib/prometheus.mjs';
import { chatBody, makeHome, startZest, waitFor, zestBin } from '../lib/zest.mjs';

const haproxyBin = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => fs.existsSync(p));
const MODELS = ['alpha', 'beta', 'gamma'];
const SESSION_MODEL = 'delta';  // only the sessions' test asks for it
// Draining nodes keep serving this long: HAProxy's checks (every 1 s, down
// after 2 failures) see /ready at 503 well before the listener closes.
const NODE_ENV = { ZEST_SHUTDOWN_DELAY: '4', ZEST_DRAIN_TIMEOUT: '60' };

const KEY = 'haproxy-test-key';
const auth = { authorization: `Bearer ${KEY}` };
const tag = `${process.pid % 100000}`;
// As root, nodes get namespaces of their own; a root without `ip` is a
// broken set-up (tests/lib/requirements.mjs), not a reason for loopback.
const asRoot = isRoot;
const skip = needs(Boolean(haproxyBin), 'HAProxy (/usr/sbin/haproxy)') || (isRoot && needs(hasIp, 'iproute2 (/usr/sbin/ip)'));
let dir;
let haproxy;
let url;
const nodes = [];  // { port, home, zest }
// The node each model hashes to, as the first test found it.
const owners = new Map();

function startHaproxy(config) {
  const file = path.join(dir, 'haproxy.cfg');
  // Foreground, no syslog here: log lines go nowhere.
  fs.writeFileSync(file, config.replace('log /dev/log local0', 'log stdout format raw local0 notice'));
  execFileSync(haproxyBin, ['-c', '-q', '-f', file]);
  const proc = spawn(haproxyBin, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.output = '';
  proc.stdout.on('data', (d) => { proc.output += d; });
  proc.stderr.on('data', (d) => { proc.output += d; });
  return proc;
}

async function chat(model) {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify(chatBody(model, { max_tokens: 8 })),
    });
    await res.text();
    return res.status;
  } catch (e) {
    return `error: ${e.cause?.code ?? e.message}`;
  }
}

// `count` requests over the models, `concurrency` at a time; their statuses.
async function load(count, concurrency, during = async () => {}) {
  const statuses = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      statuses.push(await chat(MODELS[i % MODELS.length]));
    }
  };
  await Promise.all([...Array(concurrency)].map(worker).concat([during()]));
  return statuses;
}

// A node's own routes, with the key.
const nodeJson = async (node, p) => (await node.zest.json(p, undefined, { headers: auth })).data;
const loadedOn = async (node) => (node.zest.proc.exitCode === null && node.zest.proc.signalCode === null
  ? (await nodeJson(node, '/api/v1/ps')).instances.map((i) => i.model) : []);

// Node i's namespace and veth pair: the host side 10.231.i.1, the node 10.231.i.2.
const makeNodeNamespace = (i) => makeNamespace(`zest-t${tag}-${i}`, `zh${tag}${i}`, `zn${tag}${i}`, `10.231.${i}`);

// The node that owns the most models, and its models.
function busiestNode() {
  const mineOf = (node) => MODELS.filter((m) => owners.get(m) === node);
  const victim = mineOf(nodes[0]).length >= mineOf(nodes[1]).length ? nodes[0] : nodes[1];
  return { victim, mine: mineOf(victim) };
}

async function startNode(node) {
  node.zest = await startZest({
    home: node.home, port: node.port, env: { ...NODE_ENV, ZEST_API_KEY: KEY },
    args: ['--host', node.address], prefix: node.netns ? node.netns.prefix : [],
  });
}

before(async () => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-haproxy-'));
  for (let i = 0; i < 2; i++) {
    const node = { port: await freePort(), home: makeHome(Object.fromEntries([...MODELS, SESSION_MODEL].map((m) => [m, 'tiny']))) };
    node.netns = asRoot ? makeNodeNamespace(i + 1) : null;
    node.address = node.netns?.address ?? '127.0.0.1';
    nodes.push(node);
    await startNode(node);
  }
  const listen = await freePort();
  url = `http://127.0.0.1:${listen}`;
  const config = execFileSync(zestBin, ['haproxy-config', '--listen', `127.0.0.1:${listen}`,
    ...nodes.flatMap((n) => ['--node', `${n.address}:${n.port}`])], { encoding: 'utf8' });
  haproxy = startHaproxy(config);
  await waitFor(async () => (await fetch(`${url}/ready`).then((r) => r.status).catch(() => 0)) === 200,
    { timeout: 10000, what: 'HAProxy to answer' });
});

after(async () => {
  haproxy?.kill('SIGKILL');
  for (const node of nodes) {
    await node.zest?.stop();
    node.zest?.cleanup();
    if (node.netns) removeNamespace(node.netns);
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('zest nodes behind HAProxy', { skip }, () => {
  test('200 requests over three models all succeed, each model loaded on one node only', async () => {
    if (asRoot) for (const node of nodes) assert.match(node.zest.url, /^http:\/\/10\.231\.\d\.2:/, 'in its namespace');
    const statuses = await load(200, 8);
    assert.deepEqual(statuses.filter((s) => s !== 200), [], haproxy.output);
    const perNode = await Promise.all(nodes.map(loadedOn));
    for (const model of MODELS) {
      const where = perNode.filter((list) => list.includes(model)).length;
      assert.equal(where, 1, `${model} is loaded on ${where} nodes: ${JSON.stringify(perNode)}`);
      owners.set(model, nodes[perNode.findIndex((list) => list.includes(model))]);
    }
  });

  test('SIGTERM to a node under load loses no request; it comes back and gets its models again', async () => {
    const { victim, mine } = busiestNode();
    const served = async () => (await nodeJson(victim, '/api/v1/stats')).totals.requests;
    const before = await served();
    let exited;
    const statuses = await load(120, 6, async () => {
      // Under load: once this burst has reached the node.
      await waitFor(async () => (await served()) >= before + 3, { timeout: 20000, what: 'requests on the node' });
      exited = new Promise((r) => victim.zest.proc.once('exit', r));
      victim.zest.proc.kill('SIGTERM');
    });
    assert.deepEqual(statuses.filter((s) => s !== 200), [], haproxy.output);
    assert.equal(await exited, 0);
    // Its models moved: the other node serves them now.
    assert.deepEqual((await load(MODELS.length * 3, 3)).filter((x) => x !== 200), []);
    const other = nodes.find((n) => n !== victim);
    for (const model of mine) assert.ok((await loadedOn(other)).includes(model), `${model} on the other node`);
    await startNode(victim);  // same home, same port
    // Once its checks pass, its models hash back to it.
    await waitFor(async () => {
      await load(MODELS.length, 1);
      const now = await loadedOn(victim);
      return mine.every((m) => now.includes(m));
    }, { timeout: 20000, interval: 200, what: `the node to get ${mine} back` });
  });

  test('SIGKILL loses no request: what the node had not answered is retried on the other node', async () => {
    const { victim, mine } = busiestNode();
    const served = async () => (await nodeJson(victim, '/api/v1/stats')).totals.requests;
    const before = await served();
    try {
      const statuses = await load(90, 6, async () => {
        await waitFor(async () => (await served()) >= before + 3, { timeout: 20000, what: 'requests on the node' });
        victim.zest.proc.kill('SIGKILL');
      });
      // zest sends no byte before an answer's first, so each request the
      // node held got nothing back and HAProxy's retry-on empty-response
      // sends it to the other node, as it does a connection the dead node
      // refused or an idle kept-alive one it had closed.
      assert.deepEqual(statuses.filter((s) => s !== 200), [], haproxy.output);
      const after = await load(30, 3);
      assert.deepEqual(after.filter((s) => s !== 200), [], 'after the kill every request succeeds');
    } finally {
      // Back for the next test, whatever this one found.
      const proc = victim.zest.proc;
      proc.kill('SIGKILL');
      await new Promise((r) => proc.exitCode !== null || proc.signalCode !== null ? r() : proc.once('exit', r));
      await startNode(victim);
    }
    await waitFor(async () => {
      await load(MODELS.length, 1);
      const now = await loadedOn(victim);
      return mine.every((m) => now.includes(m));
    }, { timeout: 20000, interval: 200, what: `the restarted node to get ${mine} back` });
  });

  test('conversations of one model that name a session spread over the nodes, each staying on its node, agent-sized bodies too', async (t) => {
    const served = () => Promise.all(nodes.map(async (n) => (await nodeJson(n, '/api/v1/stats')).totals.requests));
    const sessions = Array.from({ length: 8 }, (_, n) => ({
      name: `conversation-${n}`,
      // Two by zest's header, the others by OpenAI's body field.
      byHeader: n >= 6,
      messages: [{ role: 'system', content: Array.from({ length: 120 }, (_, i) => `w${(n * 131 + i * 7) % 997}`).join(' ') }],
      nodes: [],
      cached: [],
    }));
    for (let turn = 0; turn < 2; turn++) {
      for (const s of sessions) {
        s.messages.push({ role: 'user', content: `question ${turn}` });
        const body = { model: SESSION_MODEL, messages: s.messages, max_tokens: 4, temperature: 0 };
        if (!s.byHeader) body.prompt_cache_key = s.name;
        const before = await served();
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth, ...(s.byHeader ? { 'x-session-id': s.name } : {}) },
          // The second turn as large as a coding agent's (its whole
          // context), its model and session past HAProxy's default 16 KiB
          // buffer: JSON whitespace, which every parser skips.
          body: turn === 0 ? JSON.stringify(body) : JSON.stringify(body).replace('{', `{${' '.repeat(128 * 1024)}`),
        });
        const data = await res.json();
        assert.equal(res.status, 200, JSON.stringify(data));
        s.messages.push({ role: 'assistant', content: data.choices[0].message.content || 'ok' });
        s.cached.push(data.usage.prompt_tokens_details.cached_tokens / data.usage.prompt_tokens);
        // The node that served it: its request count rises once the request
        // is recorded, which may come a moment after the answer's last byte.
        let node = -1;
        await waitFor(async () => {
          const after = await served();
          node = after.findIndex((count, i) => count > before[i]);
          return node >= 0;
        }, { timeout: 10000, interval: 20, what: `the node that served ${s.name} to count it` });
        s.nodes.push(node);
      }
    }
    t.diagnostic(sessions.map((s) => `${s.name}: node ${s.nodes.join('→')}, cached ${s.cached.map((c) => c.toFixed(2)).join('/')}`).join('; '));
    for (const s of sessions) {
      assert.ok(s.nodes[0] >= 0 && s.nodes[0] === s.nodes[1], `${s.name} stayed on its node: ${s.nodes}`);
      assert.ok(s.cached[1] >= 0.8, `${s.name}'s second turn read its prompt from that node's cache: ${s.cached}`);
    }
    const used = new Set(sessions.map((s) => s.nodes[0]));
    assert.equal(used.size, 2, 'both nodes serve conversations of the one model');
  });
});
