#!/usr/bin/env bash
# make agents' set-up: the coding agents tests/agents/package.json pins,
# installed once into tests/agents/node_modules (the Makefile redoes it only
# when the pins change). npm holds back install scripts; the two the agents
# need only copy a platform binary into place, from packages already
# installed, so they run here explicitly, with no network of their own.
set -euo pipefail
cd "$(dirname "$0")/../tests/agents"
# npm install, not npm ci: the lock holds the Linux x64 builds of the agents'
# platform packages only (those the registry here serves), and npm ci
# refuses a lock without every platform's optional package; npm install
# takes the locked versions all the same.
npm install --ignore-scripts --no-audit --no-fund --loglevel=error
node node_modules/@anthropic-ai/claude-code/install.cjs
(cd node_modules/opencode-ai && node postinstall.mjs)
