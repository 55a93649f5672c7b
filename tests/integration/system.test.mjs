// GET /api/v1/system-info and `zest system`: the hardware inventory against
// this machine's /proc, and against a FAKE fixture tree (Strix Halo) through
// ZEST_SYSFS_ROOT/ZEST_PROCFS_ROOT.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { makeHome, repo, startZest, zestBin } from '../lib/zest.mjs';

const run = promisify(execFile);

function procCpu() {
  const text = fs.readFileSync('/proc/cpuinfo', 'utf8');
  return {
    threads: (text.match(/^processor\s*:/gm) ?? []).length,
    model: /^model name\s*:\s*(.*)$/m.exec(text)?.[1].trim(),
  };
}

function procMemTotalBytes() {
  return Number(/^MemTotal:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))[1]) * 1024;
}

// The JSON's shape: every key and the type of every value, arrays by their
// first element, so two answers from different moments compare equal.
function shape(value) {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, shape(value[k])]));
  }
  return value === null ? 'null' : typeof value;
}

describe('system info on this machine', () => {
  let zest;
  let env;
  before(async () => {
    zest = await startZest({ home: makeHome({}) });
    env = { ...process.env, ZEST_HOST: zest.url };
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('agrees with /proc/cpuinfo and /proc/meminfo', async () => {
    const { status, data } = await zest.json('/api/v1/system-info');
    assert.equal(status, 200);
    assert.equal(data.discovery, 'server');
    const cpu = procCpu();
    assert.equal(data.cpu.threads, cpu.threads);
    assert.equal(data.cpu.model, cpu.model);
    assert.ok(data.cpu.cores >= 1 && data.cpu.cores <= cpu.threads);
    assert.equal(data.memory.total_bytes, procMemTotalBytes());
    assert.ok(data.memory.available_bytes > 0 && data.memory.available_bytes <= data.memory.total_bytes);
    assert.equal(data.engines[0].name, 'llama-server');
    assert.equal(data.engines[0].probed, data.engines[0].found);
    const cpuRecipe = data.recipes.find((r) => r.recipe === 'llamacpp' && r.backend === 'cpu');
    assert.equal(cpuRecipe.verdict, data.engines[0].found ? 'usable' : 'installable');
    // The engine's own Vulkan devices (llvmpipe in a Vulkan rootfs) make the recipe usable.
    const vulkan = data.recipes.find((r) => r.backend === 'vulkan');
    const engineVulkan = data.engines[0].devices.some((d) => d.name.startsWith('Vulkan'));
    assert.equal(vulkan.verdict === 'usable', engineVulkan);
    assert.equal(data.utilisation.ram_total_bytes, procMemTotalBytes());
    assert.ok(data.utilisation.samples >= 1);
  });

  test('zest system --json has the API\'s shape; zest system summarises it', async () => {
    const api = (await zest.json('/api/v1/system-info')).data;
    const cli = JSON.parse((await run(zestBin, ['system', '--json'], { env })).stdout);
    assert.deepEqual(shape(cli), shape(api));
    assert.equal(cli.cpu.model, api.cpu.model);
    const { stdout } = await run(zestBin, ['system'], { env });
    assert.match(stdout, new RegExp(`^CPU\\s+${procCpu().model.replace(/[()]/g, '\\$&')}`, 'm'));
    assert.match(stdout, /^RECIPE\s+VERDICT\s+WHY/m);
    assert.match(stdout, /^llamacpp-cpu\s+(usable|installable)/m);
  });

  test('zest system without a server discovers locally, with the same shape', async () => {
    const local = { ...process.env, ZEST_HOST: 'http://127.0.0.1:9' };
    const cli = JSON.parse((await run(zestBin, ['system', '--json'], { env: local })).stdout);
    const api = (await zest.json('/api/v1/system-info')).data;
    assert.equal(cli.discovery, 'local');
    assert.equal(cli.engines[0].probed, false);
    assert.deepEqual(Object.keys(cli).sort(), Object.keys(api).sort());
    assert.equal(cli.memory.total_bytes, procMemTotalBytes());
    assert.match((await run(zestBin, ['system'], { env: local })).stdout, /discovered locally/);
  });
});

describe('system info on the FAKE Strix Halo fixture', () => {
  const fixture = path.join(repo, 'tests/fixtures/hardware/strix-halo-128g');
  let zest;
  before(async () => {
    zest = await startZest({
      home: makeHome({}),
      env: {
        ZEST_SYSFS_ROOT: path.join(fixture, 'sys'),
        ZEST_PROCFS_ROOT: path.join(fixture, 'proc'),
        ZEST_DEVFS_ROOT: path.join(fixture, 'dev'),
      },
    });
  });
  after(async () => { await zest.stop(); zest.cleanup(); });

  test('reports the Strix Halo GPU with unified memory and its NPU', async () => {
    const { data } = await zest.json('/api/v1/system-info');
    assert.equal(data.cpu.model, 'AMD RYZEN AI MAX+ 395 w/ Radeon 8060S');
    assert.equal(data.cpu.threads, 32);
    assert.equal(data.cpu.cores, 16);
    assert.equal(data.cpu.features_source, 'cpuinfo');
    assert.equal(data.memory.total_bytes, 131281715 * 1024);
    assert.equal(data.gpus.length, 1);
    const [gpu] = data.gpus;
    assert.equal(gpu.name, 'AMD Radeon 8050S/8060S (Strix Halo)');
    assert.equal(gpu.gfx_target, 'gfx1151');
    assert.equal(gpu.integrated, true);
    assert.equal(gpu.unified_memory, true);
    assert.equal(gpu.gtt_total_bytes, 110 * 1024 ** 3);
    assert.equal(gpu.pci.device_id, '0x1586');
    assert.equal(data.npus[0].generation, 'XDNA2');
    assert.equal(data.vulkan.length, 0);  // live libraries are not asked about a fixture
    assert.equal(data.utilisation.gpus[0].busy_percent, 0);
    const rocm = data.recipes.find((r) => r.backend === 'rocm');
    assert.equal(rocm.verdict, 'unsupported');
  });
});
