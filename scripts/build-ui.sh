#!/usr/bin/env bash
# Builds the web UI (ui/) into ui/dist with its own npm toolchain (Vite);
# CMake then embeds ui/dist into the zest binary (src/webui/). Without npm,
# or when its packages cannot be installed (offline), zest is still built:
# it serves a page saying how to get the UI. A UI that fails to compile
# fails the build, as C++ would.
set -euo pipefail
cd "$(dirname "$0")/../ui"

if ! command -v npm >/dev/null 2>&1; then
  echo "web UI: npm not found, so zest is built without its UI" \
       "(sudo apt-get install nodejs npm, then make)" >&2
  exit 0
fi
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  if ! npm ci --no-audit --no-fund --loglevel=error; then
    echo "web UI: npm ci failed (offline?), so zest is built without its UI" >&2
    rm -rf dist
    exit 0
  fi
fi
npm run --silent build
