#!/usr/bin/env bash
# make soak: the tests that depend on timing, and every unit test, run
# SOAK_N times (default 10) with both cores loaded by `stress -c 2`, then the
# failure count of every test that failed at least once. Not part of `make
# test`. A test that fails once here is flaky: fix it before landing it.
#
#   make soak                      # the browser suite and the files below
#   SOAK_N=3 SOAK_FILES="tests/integration/queue.test.mjs" make soak
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
rounds=${SOAK_N:-10}
export ZEST_TEST_STRICT=1

# Files whose tests wait for work in flight, queued or pending, for a
# stream to be stopped, killed or resumed, or for a timer (keep-alive,
# autoscaling, timeouts) to act.
default_files=(
  tests/ui/*.test.mjs
  tests/integration/chaos.test.mjs
  tests/integration/gateway_guards.test.mjs
  tests/integration/haproxy.test.mjs
  tests/integration/lifecycle.test.mjs
  tests/integration/limits.test.mjs
  tests/integration/load_options.test.mjs
  tests/integration/metrics.test.mjs
  tests/integration/observability.test.mjs
  tests/integration/placement.test.mjs
  tests/integration/prompt_cache.test.mjs
  tests/integration/prompt_cache_full.test.mjs
  tests/integration/queue.test.mjs
  tests/integration/replicas.test.mjs
  tests/integration/residency.test.mjs
  tests/integration/rpc.test.mjs
  tests/integration/security.test.mjs
  tests/integration/session_tier.test.mjs
  tests/integration/speculative.test.mjs
  tests/integration/speech.test.mjs
  tests/integration/speech_out.test.mjs
  tests/integration/speech_out_outetts.test.mjs
  tests/integration/vision.test.mjs
  tests/integration/web_ui_http.test.mjs
)
read -r -a files <<<"${SOAK_FILES:-${default_files[*]}}"

out="$BUILD_DIR/soak"
rm -rf "$out"
mkdir -p "$out"
stress -c 2 >/dev/null 2>&1 &
stress_pid=$!
trap 'kill "$stress_pid" 2>/dev/null; wait "$stress_pid" 2>/dev/null' EXIT

started=$SECONDS
for ((i = 1; i <= rounds; i++)); do
  echo "=== soak: round $i of $rounds (stress -c 2)"
  scripts/node-tests.mjs --label "soak round $i" --out "$out/round-$i" "${files[@]}" >"$out/round-$i.log" 2>&1
  rc=$?
  failed=$(cat "$out/round-$i/results.jsonl" 2>/dev/null | grep -c '"status":"fail"' || true)
  echo "    exit $rc; $failed failed test(s); log: $out/round-$i.log"
  if [[ -z "${SOAK_FILES:-}" ]]; then
    # The unit tests too: threads, signals and child processes race as well.
    ctest --test-dir "$BUILD_DIR" -j 2 --output-junit "$PWD/$out/round-$i/unit.xml" >"$out/round-$i.unit.log" 2>&1
    rc=$?
    failed=$(grep -c 'status="fail"' "$out/round-$i/unit.xml" 2>/dev/null || true)
    echo "    unit: exit $rc; $failed failed test(s); log: $out/round-$i.unit.log"
  fi
done

node - "$out" "$rounds" "$((SECONDS - started))" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [dir, rounds, seconds] = process.argv.slice(2);
const tests = new Map();  // "file › name" → {runs, fails, error}
// ctest's JUnit file: one <testcase name=".." status="run|fail|..."> a test.
const unitResults = (file) => [...fs.readFileSync(file, 'utf8').matchAll(
  /<testcase name="([^"]*)"[^>]*status="(\w+)"/g)].map(([, name, status]) => ({
  file: 'unit (ctest)', name: name.split('  #')[0],
  status: status === 'run' ? 'pass' : status === 'fail' ? 'fail' : 'skip', error: 'see the round\'s unit log',
}));
for (let i = 1; i <= Number(rounds); i++) {
  const file = path.join(dir, `round-${i}`, 'results.jsonl');
  const unit = path.join(dir, `round-${i}`, 'unit.xml');
  const results = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  if (fs.existsSync(unit)) results.push(...unitResults(unit));
  for (const t of results) {
    if (t.status === 'skip') continue;
    const key = `${path.relative(process.cwd(), t.file ?? '')} › ${t.name}`;
    const row = tests.get(key) ?? { runs: 0, fails: 0, error: '' };
    row.runs++;
    if (t.status === 'fail') { row.fails++; row.error = t.error ?? ''; }
    tests.set(key, row);
  }
}
const failing = [...tests].filter(([, r]) => r.fails > 0).sort((a, b) => b[1].fails - a[1].fails);
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
console.log(`\nsoak: ${rounds} rounds under stress -c 2, ${tests.size} tests, ${Math.round(seconds / 60)} min (${date} UTC)`);
console.log('| test | runs | failures |\n|---|---:|---:|');
if (!failing.length) console.log(`| every test (${tests.size}) | ${rounds} each | 0 |`);
for (const [key, r] of failing) console.log(`| ${key} | ${r.runs} | ${r.fails} (last: ${r.error.replace(/\|/g, '/').replace(/\s+/g, ' ').slice(0, 160)}) |`);
process.exit(failing.length ? 1 : 0);
JS
