// NPU placement end to end on the FAKE Ryzen AI 300 laptop
// (tests/fixtures/hardware: an XDNA2 NPU with /dev/accel/accel0) with a FAKE
// FastFlowLM (tests/lib/fake_flm.mjs) that serves with the real
// llama-server. What is real: zest's placement of a model with an NPU build
// on the NPU, FastFlowLM's command line, its own network namespace and the
// engine bridge in front of it, the relay's model renaming, one model at a
// time on the NPU, eviction for an explicit NPU load, and no process left
// behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { alive, chatBody, descendants, makeHome, repo, startZest, waitFor } from '../lib/zest.mjs';
import { writeFakeFlm } from '../lib/fake_flm.mjs';

const fixture = path.join(repo, 'tests/fixtures/hardware/ryzen-ai-300-laptop');
const CONFIG = `[models."tiny"]
flm = "llama3.2:1b"
[models."tiny2"]
flm = "qwen3:0.6b"
`;

const instance = async (zest, model) => (await zest.instances()).find((i) => i.model === model);

// Whether anything in this network namespace listens on 127.0.0.1:port.
const reachable = (port) => new Promise((resolve) => {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.once('connect', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

describe('a model with a FastFlowLM build on the NPU (FAKE NPU, FAKE flm)', () => {
  let donor;  // a plain zest whose llama-server command line the FAKE flm reuses
  let zest;
  let flm;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-fake-flm-'));

  before(async () => {
    donor = await startZest();
    assert.equal((await donor.json('/v1/chat/completions', chatBody('tiny'))).status, 200);
    const engine = descendants(donor.pid).find((p) => p.comm === 'bwrap' || p.comm === 'llama-server');
    const argv = fs.readFileSync(`/proc/${engine.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    // The donor's run directory must stay (the command binds it); its engine need not.
    await donor.json('/api/v1/unload', { model: 'tiny' });
    flm = writeFakeFlm(dir, argv);
    const home = makeHome({ tiny: 'tiny', tiny2: 'tiny', plain: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'), CONFIG, { mode: 0o600 });
    zest = await startZest({
      home,
      env: {
        ZEST_SYSFS_ROOT: path.join(fixture, 'sys'),
        ZEST_DEVFS_ROOT: path.join(fixture, 'dev'),
        ZEST_FLM: flm.script,
      },
    });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    await donor?.stop();
    donor?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('system-info finds the NPU usable with flm installed', async () => {
    const info = (await zest.json('/api/v1/system-info')).data;
    const verdict = info.recipes.find((r) => r.recipe === 'flm');
    assert.equal(verdict.verdict, 'usable', verdict.reason);
    assert.equal(info.engines.find((e) => e.name === 'flm').binary, flm.script);
    // `zest engines` lists it beside llama-server (and whisper-server where
    // `make engines` provisioned it).
    const engines = (await zest.json('/api/v1/engines')).data.engines;
    assert.deepEqual(engines.map((e) => e.name).slice(0, 2), ['llama-server', 'flm']);
    assert.equal(engines[1].source, 'configured');
  });

  test('the model runs on the NPU through FastFlowLM, under its own name', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('tiny'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    assert.equal(r.data.model, 'tiny');  // the engine said 'llama3.2:1b'
    const tiny = await instance(zest, 'tiny');
    assert.equal(tiny.device, 'NPU');
    assert.equal(tiny.placement.recipe, 'flm');
    assert.equal(tiny.placement.flm, 'llama3.2:1b');
    assert.deepEqual(tiny.placement.devices, ['NPU']);
    assert.equal(tiny.slots, 1);
    assert.match(tiny.placement.explanation, /^on the NPU \(AMD XDNA2 NPU \(Strix\/Krackan\)\) with FastFlowLM as 'llama3\.2:1b'/);
    // `zest list`'s FIT says where it runs; a model without an NPU build runs in RAM here.
    const models = (await zest.json('/v1/models')).data.data;
    assert.equal(models.find((m) => m.id === 'tiny').fit.verdict, 'npu');
    assert.equal(models.find((m) => m.id === 'plain').fit.verdict, 'yes');
    const serve = flm.calls().find((c) => c[0] === 'serve');
    assert.deepEqual(serve, ['serve', 'llama3.2:1b', '--ctx-len', String(tiny.placement.ctx_size),
                             '--port', '52625', '--host', '127.0.0.1', '--quiet']);
  });

  test('streamed chunks carry the client\'s model name too', async () => {
    const r = await zest.stream('/v1/chat/completions', chatBody('tiny', { max_tokens: 8 }));
    assert.equal(r.status, 200);
    const chunks = r.events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    assert.ok(chunks.length >= 2);
    for (const c of chunks) assert.equal(c.model, 'tiny', JSON.stringify(c));
    assert.equal(r.events.at(-1), '[DONE]');
  });

  test('FastFlowLM\'s port exists only in its own network namespace', async () => {
    // It listens on 127.0.0.1:52625 in there; out here nothing does, so no
    // local process gets around zest's keys and limits.
    assert.equal(await reachable(52625), false);
  });

  test('the NPU holds one model: the next goes to llama-server and says why', async () => {
    const r = await zest.json('/v1/chat/completions', chatBody('tiny2'));
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const tiny2 = await instance(zest, 'tiny2');
    assert.notEqual(tiny2.device, 'NPU');
    assert.equal(tiny2.placement.recipe, 'llamacpp');
    assert.match(tiny2.placement.explanation,
                 /Not on the NPU: it runs 'tiny' \(FastFlowLM holds one model at a time\)\./);
  });

  test('a load that asks for the NPU evicts the idle model there', async () => {
    const r = await zest.json('/api/v1/load', { model: 'tiny2', options: { device: 'npu' } });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    await waitFor(async () => (await instance(zest, 'tiny')) === undefined, { what: 'tiny evicted' });
    const tiny2 = await instance(zest, 'tiny2');
    assert.equal(tiny2.device, 'NPU');
    assert.equal(tiny2.placement.flm, 'qwen3:0.6b');
    const chat = await zest.json('/v1/chat/completions', chatBody('tiny2'));
    assert.equal(chat.status, 200);
    assert.equal(chat.data.model, 'tiny2');
  });

  test('a replica of the NPU model runs on llama-server beside it', async () => {
    const r = await zest.json('/api/v1/load', { model: 'tiny2', replica: true });
    assert.equal(r.status, 200, JSON.stringify(r.data));
    const instances = (await zest.instances()).filter((i) => i.model === 'tiny2');
    assert.deepEqual(instances.map((i) => i.device).sort(), ['CPU', 'NPU']);
    const replica = instances.find((i) => i.device === 'CPU');
    assert.equal(replica.placement.recipe, 'llamacpp');
    assert.doesNotMatch(replica.placement.explanation, /NPU/);
    const answers = await Promise.all([1, 2, 3].map(() => zest.json('/v1/chat/completions', chatBody('tiny2'))));
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.equal(a.data.model, 'tiny2');
    }
  });

  test('asking for the NPU for a model without an NPU build is a clear 400', async () => {
    const r = await zest.json('/api/v1/load', { model: 'plain', options: { device: 'npu' } });
    assert.equal(r.status, 400, JSON.stringify(r.data));
    assert.match(r.data.error.message, /'plain' cannot run on the NPU: it has no FastFlowLM build/);
    assert.equal(await instance(zest, 'plain'), undefined);
  });

  test('stopping zest leaves no FastFlowLM, bridge or engine behind', async () => {
    const engines = descendants(zest.pid);
    assert.ok(engines.some((p) => p.comm === 'zest'), JSON.stringify(engines));  // the bridge
    await zest.stop();
    await waitFor(() => engines.every((p) => !alive(p.pid)), { timeout: 15000, what: 'engines gone' });
  });
});
