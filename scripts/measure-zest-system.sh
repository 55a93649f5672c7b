#!/usr/bin/env bash
# What `zest system` costs without a server (it then discovers the hardware
# itself): the instructions one run executes, counted by valgrind's
# callgrind (a count, so it holds on a busy machine too), and the wall time
# of RUNS runs (default 50: median, p90, max), which means something only
# on a quiet machine: the load average is printed before and after, and
# the times are marked when it was over 0.5 per core.
#   scripts/measure-zest-system.sh [build/zest]
set -euo pipefail
cd "$(dirname "$0")/.."
zest=${1:-build/zest}
runs=${RUNS:-50}
[[ -x $zest ]] || { echo "measure-zest-system: $zest is not built (make)" >&2; exit 1; }
# A port nothing listens on: zest system finds no server and works alone.
export ZEST_HOST=http://127.0.0.1:1
cores=$(nproc)
load() { cut -d' ' -f1 /proc/loadavg; }
load_before=$(load)
"$zest" system --json >/dev/null  # warm the page cache

if command -v valgrind >/dev/null 2>&1; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$zest" system --json >/dev/null 2>"$out/log"
  instr=$(grep -E '^summary:|^totals:' "$out/cg" | head -n1 | awk '{print $2}')
  printf 'instructions: %s (callgrind, one run)\n' "$instr"
else
  echo "instructions: not counted (valgrind is not installed)"
fi

times=()
for ((i = 0; i < runs; i++)); do
  t0=$(date +%s%N)
  "$zest" system --json >/dev/null
  t1=$(date +%s%N)
  times+=($(((t1 - t0) / 1000)))
done
load_after=$(load)
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
pick() { sed -n "$1p" <<<"$sorted"; }
median=$(pick $(((runs + 1) / 2)))
p90=$(pick $(((runs * 9 + 9) / 10)))
max=$(pick "$runs")
busy=$(awk -v a="$load_before" -v b="$load_after" -v c="$cores" 'BEGIN { print (a / c > 0.5 || b / c > 0.5) ? 1 : 0 }')
note=""
((busy)) && note="  NOT A MEASUREMENT: the machine was busy"
ms() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'; }
printf 'wall time over %d runs: median %s ms, p90 %s ms, max %s ms (load %s, then %s, on %d cores)%s\n' \
  "$runs" "$(ms "$median")" "$(ms "$p90")" "$(ms "$max")" "$load_before" "$load_after" "$cores" "$note"
