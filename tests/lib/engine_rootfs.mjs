// Where the engine root filesystems live, as scripts/provision-engines.sh
// puts them and zest itself looks for them (config/settings.cc): the
// system cache as root, else the user's ($XDG_CACHE_HOME, or ~/.cache).
// A test that needs a binary from the rootfs asks needsEngineBinary(): under
// `make test` (ZEST_TEST_STRICT=1, tests/lib/requirements.mjs) a missing one
// fails, since `make test` provisions it; by hand it skips, saying why.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { needs } from './requirements.mjs';

// The default path of the rootfs called `name` (debian-sid, debian-sid-vulkan).
export function defaultRootfs(name) {
  if (process.getuid() === 0) return path.join('/var/cache/zest/engines', name);
  const cache = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(cache, 'zest/engines', name);
}

// The rootfs zest serves from: ZEST_ENGINE_ROOTFS, else the default.
export const engineRootfs = process.env.ZEST_ENGINE_ROOTFS ?? defaultRootfs('debian-sid');

// The `skip` option for a describe()/test() that needs `rel` (e.g.
// 'usr/bin/llama-tts') inside the engine rootfs. With `orOnPath`, a binary
// of that name on PATH does too (zest takes a system engine before the
// rootfs, and `make engines` then provisions no rootfs for it). Call it once
// per file and binary: in strict mode it adds a failing test to the file
// that calls it.
export function needsEngineBinary(rel, { orOnPath = false } = {}) {
  const file = path.join(engineRootfs, rel);
  const name = path.basename(rel);
  const onPath = orOnPath && (process.env.PATH ?? '').split(':').filter(Boolean)
    .some((dir) => fs.existsSync(path.join(dir, name)));
  return needs(fs.existsSync(file) || onPath, `${name} in the engine rootfs (${file}: make engines)`);
}
