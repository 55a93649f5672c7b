#!/usr/bin/env bash
# make agents' set-up: the coding agents tests/agents/package.json pins,
# installed once into tests/agents/node_modules (the Makefile redoes it only
# when the pins change). npm holds back install scripts; the two the agents
# need only copy a platform binary into place, from packages already
# installed, so they run here explicitly, with no network of their own.
set -euo pipefail
cd "$(dirname "$0")/../tests/agents"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
node node_modules/@anthropic-ai/claude-code/install.cjs
(cd node_modules/opencode-ai && node postinstall.mjs)
