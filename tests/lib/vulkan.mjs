// The Vulkan engine rootfs that tests placing models on a GPU device need:
// llama-server built with ggml's Vulkan backend, which runs on Mesa's
// llvmpipe (software) here. `make test` provisions it
// (ZEST_ENGINE_VULKAN=1 scripts/provision-engines.sh), so there a missing
// rootfs fails; run by hand without it, the test skips and says why
// (requirements.mjs). ZEST_TEST_VULKAN_ROOTFS points at another one.
import fs from 'node:fs';
import path from 'node:path';
import { defaultRootfs } from './engine_rootfs.mjs';
import { needs } from './requirements.mjs';

// Where provision-engines.sh puts it: the system cache as root, else the
// user's (engine_rootfs.mjs).
export const vulkanRootfs = process.env.ZEST_TEST_VULKAN_ROOTFS ?? defaultRootfs('debian-sid-vulkan');

// The `skip` option for a describe() that needs the rootfs (see needs()):
// called once per test file, since in strict mode it adds a failing test to
// the file that calls it.
export function needsVulkanRootfs() {
  const backend = path.join(vulkanRootfs, 'usr/lib/x86_64-linux-gnu/ggml/backends0/libggml-vulkan.so');
  return needs(fs.existsSync(backend), `the Vulkan engine rootfs (${vulkanRootfs})`);
}
