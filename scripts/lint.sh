#!/usr/bin/env bash
# make lint: every C++ file must be as clang-format writes it, and the
# changed ones must pass clang-tidy (.clang-tidy; warnings are errors).
# "Changed": against LINT_BASE (default: the merge base with origin/main
# when there is one, else the previous commit), plus uncommitted files.
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

if [[ ${LINT_ALL:-0} == 1 ]]; then
  mapfile -t sources < <(git ls-files 'src/*.cc' 'tests/fuzz/*.cc')
else
  base=${LINT_BASE:-}
  if [[ -z $base ]]; then
    base=$(git merge-base HEAD origin/main 2>/dev/null || true)
    [[ -z $base || $base == "$(git rev-parse HEAD)" ]] && base=$(git rev-parse -q --verify HEAD~1 || true)
  fi
  if [[ -z $base ]]; then
    echo "lint: clang-tidy: no earlier commit to compare with (a shallow clone); nothing to check"
    exit 0
  fi
  mapfile -t sources < <({ git diff --name-only --diff-filter=d "$base" -- 'src/*.cc';
                           git ls-files --others --exclude-standard 'src/*.cc'; } | sort -u)
fi
if ((${#sources[@]} == 0)); then
  echo "lint: clang-tidy: no changed source files"
  exit 0
fi
# clang does not know GCC's -fcoroutines (C++20 has coroutines anyway).
mkdir -p "$build/lint"
sed 's/ -fcoroutines//g' "$build/compile_commands.json" >"$build/lint/compile_commands.json"
echo "lint: clang-tidy on ${#sources[@]} file(s)"
if ! printf '%s\n' "${sources[@]}" |
     xargs -P "${JOBS:-$(nproc)}" -n 1 clang-tidy -p "$build/lint" --quiet \
       --extra-arg=-Wthread-safety; then
  echo "lint: FAILED: clang-tidy found the problems above" >&2
  exit 1
fi
echo "lint: ok"
