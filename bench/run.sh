#!/usr/bin/env bash
# `make bench`: gateway overhead, zest vs direct llama-server, in one script.
# Results are appended to bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node bench/gateway_overhead.mjs "$@"
