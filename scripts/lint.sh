#!/usr/bin/env bash
# make lint: every C++ file must be as clang-format writes it, and the
# changed ones must pass clang-tidy (.clang-tidy; warnings are errors).
# clang-tidy takes ~15 s a file here, so the whole tree (`make tidy`,
# LINT_ALL=1) is not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

mapfile -t all < <(git ls-files '*.cc' '*.h')
echo "lint: clang-format on ${#all[@]} files"
if ! clang-format --dry-run --Werror "${all[@]}"; then
  echo "lint: FAILED: run clang-format -i on the files above (or git clang-format)" >&2
  exit 1
fi

# The files clang-tidy checks: all of them (LINT_ALL=1, `make tidy`), or
# those changed since LINT_BASE (default: the merge base with origin/main
# when it is behind HEAD, else the previous commit), plus uncommitted ones.
# A shallow clone (CI's) has no previous commit: fetch it; where that is
# impossible, check every file rather than nothing.
base=${LINT_BASE:-}
if [[ ${LINT_ALL:-0} != 1 && -z $base ]]; then
  base=$(git merge-base HEAD origin/main 2>/dev/null || true)
  [[ -z $base || $base == "$(git rev-parse HEAD)" ]] && base=$(git rev-parse -q --verify HEAD~1 || true)
  if [[ -z $base && $(git rev-parse --is-shallow-repository) == true ]]; then
    echo "lint: a shallow clone: fetching the previous commit to compare with"
    timeout 120 git fetch --quiet --deepen=1 2>/dev/null || true
    base=$(git rev-parse -q --verify HEAD~1 || true)
  fi
  [[ -z $base ]] && echo "lint: clang-tidy: no earlier commit to compare with: checking every file"
fi
if [[ ${LINT_ALL:-0} == 1 || -z $base ]]; then
  mapfile -t sources < <(git ls-files 'src/*.cc' 'tests/fuzz/*.cc')
  what="every file"
else
  mapfile -t sources < <({ git diff --name-only --diff-filter=d "$base" -- 'src/*.cc';
                           git ls-files --others --exclude-standard 'src/*.cc'; } | sort -u)
  what="the files changed since $(git rev-parse --short "$base") ($(git log -1 --format=%s "$base" | cut -c1-60))"
fi
if ((${#sources[@]} == 0)); then
  echo "lint: clang-tidy: no source file changed since $(git rev-parse --short "$base")"
  echo "lint: ok"
  exit 0
fi
# clang does not know GCC's -fcoroutines (C++20 has coroutines anyway).
mkdir -p "$build/lint"
sed 's/ -fcoroutines//g' "$build/compile_commands.json" >"$build/lint/compile_commands.json"
echo "lint: clang-tidy on ${#sources[@]} file(s), $what:"
printf '  %s\n' "${sources[@]}"
if ! printf '%s\n' "${sources[@]}" |
     xargs -P "${JOBS:-$(nproc)}" -n 1 clang-tidy -p "$build/lint" --quiet \
       --extra-arg=-Wthread-safety; then
  echo "lint: FAILED: clang-tidy found the problems above" >&2
  exit 1
fi
echo "lint: ok"
