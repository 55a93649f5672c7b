#!/usr/bin/env bash
# Builds zest with AddressSanitizer + UndefinedBehaviorSanitizer (GCC) into
# build-asan/ and runs the integration suite against that binary
# (ZEST_BIN=build-asan/zest). Sanitizer reports go to build-asan/reports/;
# any report fails the run. Not part of `make test` (a full build and a
# slower suite); CI runs it when time allows.
#   scripts/asan.sh                                   # the whole integration suite
#   scripts/asan.sh tests/integration/limits.test.mjs # some files
set -euo pipefail
cd "$(dirname "$0")/.."

flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if [[ ! -f build-asan/build.ninja ]]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZEST_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build build-asan -j "${JOBS:-$(nproc)}" --target zest

reports=build-asan/reports
rm -rf "$reports" && mkdir -p "$reports"
files=("$@")
((${#files[@]})) || files=(tests/integration/*.test.mjs)
status=0
ZEST_BIN=$PWD/build-asan/zest \
ASAN_OPTIONS="log_path=$PWD/$reports/asan:detect_leaks=1:abort_on_error=0" \
UBSAN_OPTIONS="log_path=$PWD/$reports/ubsan:print_stacktrace=1:halt_on_error=1" \
  node --test --test-concurrency=1 --test-timeout=600000 "${files[@]}" || status=$?
if compgen -G "$reports/*" >/dev/null; then
  echo "asan: sanitizer reports in $reports:" >&2
  head -n 40 "$reports"/* >&2
  status=1
fi
exit $status
