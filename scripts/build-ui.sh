#!/usr/bin/env bash
# Builds the web UI (ui/) into ui/dist with its own npm toolchain (Vite);
# CMake then embeds ui/dist into the zest binary (src/webui/). The UI is part
# of zest: a build that cannot make it fails, saying why, as C++ would
# (scripts/deps.sh installs nodejs and npm; the packages come from the npm
# registry).
set -euo pipefail
cd "$(dirname "$0")/../ui"

if ! command -v npm >/dev/null 2>&1; then
  echo "web UI: npm not found (sudo apt-get install nodejs npm, or make deps)" >&2
  exit 1
fi
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  if ! npm ci --no-audit --no-fund --loglevel=error; then
    echo "web UI: npm ci failed: its packages could not be installed from the npm registry" >&2
    rm -rf dist
    exit 1
  fi
fi
npm run --silent build
