#!/usr/bin/env bash
# make test: every stage in order (set-up, lint, unit, integration, browser,
# compat, agents, fuzz), each timed; stops at the first that fails and prints the
# time of each stage either way, with the slowest test files of the node
# stages (scripts/node-tests.mjs). ZEST_TEST_STRICT=1: a tool a test needs
# that is missing fails the test instead of skipping it (make test installs
# them all; tests/lib/requirements.mjs).
set -uo pipefail
cd "$(dirname "$0")/.."
export ZEST_TEST_STRICT=1
BUILD_DIR=${BUILD_DIR:-build}
rm -rf "$BUILD_DIR/test-results"

names=()
times=()
summary() {
  echo
  echo "make test: time per stage"
  local total=0
  for i in "${!names[@]}"; do
    printf '%7d s  %s\n' "${times[$i]}" "${names[$i]}"
    total=$((total + times[i]))
  done
  printf '%7d s  in all (%d min %d s)\n' "$total" $((total / 60)) $((total % 60))
}

stage() {
  local name=$1
  shift
  local started=$SECONDS
  echo "=== make test: $name"
  "$@"
  local rc=$?
  names+=("$name$( ((rc)) && echo " FAILED (exit $rc)")")
  times+=($((SECONDS - started)))
  if ((rc)); then
    summary
    exit "$rc"
  fi
}

m() { make --no-print-directory "$@"; }
stage "build" m build
stage "engines" m engines
stage "test tools" scripts/deps.sh --test
stage "Vulkan engine" env ZEST_ENGINE_VULKAN=1 scripts/provision-engines.sh  # for placement_vulkan, replicas
stage "lint" m lint
stage "unit" m unit
stage "integration" m integration
stage "browser" m browser
stage "compat" m compat
stage "agents" m agents
stage "fuzz" m fuzz
summary
