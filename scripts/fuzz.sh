#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan into
# build-fuzz/, then runs each for FUZZ_SECONDS (default 20) from its seed
# corpus. New inputs go to a scratch directory, never into the repo; a crash
# leaves its input as build-fuzz/crash-<target>-* and fails the run.
#   FUZZ_SECONDS=600 scripts/fuzz.sh        # a longer run
#   scripts/fuzz.sh gguf                    # one target
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-20}
targets=("$@")
((${#targets[@]})) || targets=(http_request json_request admin_json gguf client_input)

if ! command -v clang++ >/dev/null 2>&1; then
  # make test installs clang (scripts/deps.sh --test): missing there, fail.
  if [[ ${ZEST_TEST_STRICT:-0} == 1 || ${CI:-} =~ ^(1|true)$ ]]; then
    echo "fuzz: FAILED: clang++ is not installed (scripts/deps.sh --test installs it); the fuzz targets need libFuzzer" >&2
    exit 1
  fi
  echo "fuzz: SKIPPED: clang++ is not installed (apt install clang); the fuzz targets need libFuzzer" >&2
  exit 0
fi

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -f build-fuzz/build.ninja ]]; then
  cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >/dev/null
fi
cmake --build build-fuzz -j "${JOBS:-$(nproc)}"

for target in "${targets[@]}"; do
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  echo "fuzz: $target for ${seconds}s"
  if ! build-fuzz/"${target}"_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="build-fuzz/crash-${target}-" \
       "$scratch" "tests/fuzz/corpus/$target" >"build-fuzz/${target}.log" 2>&1; then
    tail -n 60 "build-fuzz/${target}.log" >&2
    echo "fuzz: $target FAILED (input saved as build-fuzz/crash-${target}-*)" >&2
    exit 1
  fi
  grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "build-fuzz/${target}.log" | tail -n 2
  rm -rf "$scratch"
  trap - EXIT
done
