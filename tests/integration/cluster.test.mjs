// The cluster manifest (`cluster.manifest`): a node pulls the manifest's
// models at start-up and checks its files' hashes, stays not ready (GET
// /ready 503) until all are present, reports each model on
// /api/v1/cluster and /metrics, and `zest sync` finds drift (a file with
// another hash) and its repair. Real zest, real llama-server, the stand-in
// hub (tests/lib/fake_hub.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sha256File, startFakeHub } from '../lib/fake_hub.mjs';
import { chatBody, makeHome, startZest, syntheticModel, waitFor, zestBin } from '../lib/zest.mjs';

const REPO = 'test-org/Tiny-GGUF';

function zestCli(zest, args) {
  return new Promise((resolve) => {
    execFile(zestBin, args, { env: { ...process.env, ZEST_HOST: zest.url } }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

let hub;
let dir;
before(async () => {
  hub = await startFakeHub({
    repos: { [REPO]: { files: { 'tiny-Q8_0.gguf': fs.readFileSync(syntheticModel('tiny')) } } },
    throttle: 200_000,  // ~3 s: the node is seen not ready while it pulls
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-cluster-'));
});
after(async () => {
  await hub?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('cluster manifest', () => {
  test('not ready until the manifest models are here; drift found by zest sync, and its repair', async () => {
    const file = path.join(dir, 'local-model.gguf');
    fs.copyFileSync(syntheticModel('tiny'), file);
    const sha = sha256File(file);
    const home = makeHome({});
    // Relative: next to zest's home.
    fs.writeFileSync(path.join(home, 'models.toml'),
      `[[model]]\npull = "${REPO}:Q8_0"\n\n[[model]]\nfile = "${file}"\nsha256 = "${sha}"\n`);
    const cache = path.join(dir, 'hf');
    const zest = await startZest({ home, env: { ZEST_CLUSTER_MANIFEST: 'models.toml', HF_ENDPOINT: hub.url, HF_HUB_CACHE: cache } });
    try {
      const first = await zest.json('/ready');
      assert.equal(first.status, 503);
      assert.equal(first.data.status, 'starting');
      assert.match(first.data.reason, /cluster manifest/);
      assert.equal((await zest.json('/health')).status, 200, 'alive all the same');
      await waitFor(async () => (await zest.json('/ready')).status === 200, { timeout: 30000, what: 'ready' });

      let cluster = (await zest.json('/api/v1/cluster')).data;
      assert.equal(cluster.in_sync, true, JSON.stringify(cluster));
      assert.equal(cluster.manifest, path.join(home, 'models.toml'));
      assert.deepEqual(cluster.models.map((m) => m.status), ['present', 'present']);
      const pulled = cluster.models[0].model;
      assert.match(pulled, /Tiny-GGUF/);
      const reply = await zest.json('/v1/chat/completions', chatBody(pulled, { max_tokens: 4 }));
      assert.equal(reply.status, 200, JSON.stringify(reply.data));
      const metrics = await (await zest.fetch('/metrics')).text();
      assert.match(metrics, /zest_cluster_models\{status="present"\} 2/);

      // Drift: the file changes under the node.
      fs.appendFileSync(file, 'x');
      const drifted = await zestCli(zest, ['sync']);
      assert.equal(drifted.code, 1, drifted.stdout + drifted.stderr);
      assert.match(drifted.stdout, /drift/);
      const notReady = await zest.json('/ready');
      assert.equal(notReady.status, 503);
      assert.equal(notReady.data.status, 'not_ready');
      assert.match(notReady.data.reason, /1 of 2 models/);
      cluster = (await zest.json('/api/v1/cluster')).data;
      assert.equal(cluster.in_sync, false);
      assert.equal(cluster.models[1].status, 'drift');
      assert.match(cluster.models[1].detail, new RegExp(`the manifest says ${sha}`));
      assert.match(await (await zest.fetch('/metrics')).text(), /zest_cluster_models\{status="drift"\} 1/);

      // Repaired: ready again.
      fs.copyFileSync(syntheticModel('tiny'), file);
      const fixed = await zestCli(zest, ['sync']);
      assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
      assert.equal((await zest.json('/ready')).status, 200);
    } finally {
      await zest.stop();
      zest.cleanup();
    }
  });

  test('an unreadable manifest keeps the node not ready, saying why', async () => {
    const home = makeHome({});
    fs.writeFileSync(path.join(home, 'bad.toml'), '[[model]]\nfile = "relative.gguf"\nsha256 = "abc"\n');
    const zest = await startZest({ home, env: { ZEST_CLUSTER_MANIFEST: path.join(home, 'bad.toml') } });
    try {
      await waitFor(async () => (await zest.json('/ready')).data.status === 'not_ready', { timeout: 10000, what: 'not_ready' });
      const r = await zest.json('/ready');
      assert.equal(r.status, 503);
      assert.match(r.data.reason, /bad\.toml, model 1: file must be an absolute path/);
      const cluster = (await zest.json('/api/v1/cluster')).data;
      assert.match(cluster.error, /absolute path/);
    } finally {
      await zest.stop();
      zest.cleanup();
    }
  });

  test('without a manifest the node is ready at once and says it has none', async () => {
    const zest = await startZest({ home: makeHome({}) });
    try {
      assert.equal((await zest.json('/ready')).status, 200);
      assert.deepEqual((await zest.json('/api/v1/cluster')).data, { manifest: null, in_sync: true, syncing: false, models: [] });
      const r = await zestCli(zest, ['sync']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /no cluster manifest/);
    } finally {
      await zest.stop();
      zest.cleanup();
    }
  });
});
