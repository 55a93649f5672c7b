// Placement on a real GPU device: Vulkan's llvmpipe (software) inside an
// engine rootfs built with the Vulkan backend. One model fully on Vulkan0,
// one on the CPU, one split between them, all running at once; the
// engine's own load log says where the layers went.
// Needs that rootfs: ZEST_ENGINE_ROOTFS=/var/cache/zest/engines/debian-sid-vulkan
// ZEST_ENGINE_VULKAN=1 scripts/provision-engines.sh (or ZEST_TEST_VULKAN_ROOTFS
// pointing at one); without it, it fails under make test (which provisions
// it) and skips, saying so, when run by hand.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { needsVulkanRootfs, vulkanRootfs as rootfs } from '../lib/vulkan.mjs';
import { chatBody, makeHome, startZest, waitFor } from '../lib/zest.mjs';

// `make test` provisions it (ZEST_ENGINE_VULKAN=1): missing there, this fails.
const skip = needsVulkanRootfs();

// -lv 4 (trace): the engine logs where each layer and KV buffer went. Not
// -v: llama-server's verbose mode also logs each reply's JSON with a strict
// UTF-8 check and ends a stream with a 500 when the synthetic model's random
// bytes are not valid UTF-8 (2 of 200 streams, seen in CI).
const CONFIG = `[models."gpu"]
device = "Vulkan0"
extra_args = ["-lv", "4"]
[models."cpu"]
extra_args = ["-lv", "4"]
[models."split"]
device = "Vulkan0"
n_gpu_layers = 2
extra_args = ["-lv", "4"]
`;

describe('placement on Vulkan (llvmpipe) and the CPU', { skip }, () => {
  let zest;
  const engineLog = (model) => fs.readFileSync(path.join(zest.home, 'logs', `${model}.log`), 'utf8');
  before(async () => {
    const home = makeHome({ gpu: 'tiny', cpu: 'tiny', split: 'tiny' });
    fs.writeFileSync(path.join(home, 'config.toml'), CONFIG);
    zest = await startZest({ home, env: { ZEST_ENGINE_ROOTFS: rootfs, GGML_VK_VISIBLE_DEVICES: '0' } });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('three models placed at once: Vulkan0, CPU, and split', async () => {
    const results = await Promise.all(['gpu', 'cpu', 'split'].map((m) =>
      zest.stream('/v1/chat/completions', chatBody(m, { max_tokens: 16, ignore_eos: true }))));
    for (const r of results) {
      assert.equal(r.status, 200);
      assert.equal(r.events.at(-1), '[DONE]');
    }
    const byModel = Object.fromEntries((await zest.instances()).map((i) => [i.model, i.placement]));
    // The tiny model has 2 blocks + the output head = 3 layers.
    assert.deepEqual(byModel.gpu.devices, ['Vulkan0']);
    assert.equal(byModel.gpu.n_gpu_layers, 3);
    assert.match(byModel.gpu.explanation, /^all 3 layers on Vulkan0/);
    // llvmpipe is slower than the CPU backend: never chosen unless named.
    assert.deepEqual(byModel.cpu.devices, ['CPU']);
    assert.equal(byModel.split.n_gpu_layers, 2);
    assert.match(byModel.split.explanation, /^2 layers of 3 on Vulkan0, the rest on the CPU/);

    // llvmpipe computes on CPU threads: the full offload is in the CPU
    // thread budget, and llvmpipe gets the engine's share.
    for (const m of ['gpu', 'split']) {
      const instance = (await zest.instances()).find((i) => i.model === m);
      assert.ok(instance.placement.cpu_threads >= 1, JSON.stringify(instance.placement));
      const env = fs.readFileSync(`/proc/${instance.pid}/environ`, 'utf8').split('\0');
      assert.ok(env.includes(`LP_NUM_THREADS=${instance.placement.cpu_threads}`), `${m}: ${env.filter((e) => e.startsWith('LP_')).join(' ')}`);
    }
    assert.match(engineLog('gpu'), /offloaded 3\/3 layers to GPU/);
    assert.match(engineLog('gpu'), /Vulkan0 KV buffer size/);
    assert.match(engineLog('split'), /offloaded 2\/3 layers to GPU/);
    assert.match(engineLog('split'), /CPU KV buffer size/);
    assert.match(engineLog('split'), /Vulkan0 KV buffer size/);
    assert.doesNotMatch(engineLog('cpu'), /Vulkan0 (model|KV) buffer/);
    assert.match(engineLog('cpu'), /CPU KV buffer size/);

    // Each load taught the memory correction of its kind of layout only
    // (with a GPU the RSS holds driver mappings the CPU figure does not model).
    const store = path.join(zest.home, 'memory_corrections.json');
    const read = () => (fs.existsSync(store) ? JSON.parse(fs.readFileSync(store, 'utf8')).models : {});
    // Learned right after each load, beside the first requests: wait for all three.
    await waitFor(() => Object.keys(read()).length === 3, { timeout: 30000, what: 'three corrections learned' });
    const learned = read();
    assert.equal(learned.gpu.with_gpus.loads, 1, JSON.stringify(learned));
    assert.equal(learned.gpu.cpu_only, undefined);
    assert.equal(learned.split.with_gpus.loads, 1);
    assert.equal(learned.cpu.cpu_only.loads, 1);
    assert.equal(learned.cpu.with_gpus, undefined);
  });
});
