#!/usr/bin/env bash
# The include-graph figures of issue 27, counted from the #include lines of
# src/ (tests beside the code included). Run from the repository root.
#   api-modules      includes from one API module (admin, anthropic, ollama,
#                    openai, responses: the folders under src/api/ that serve
#                    an API) of another
#   shared-to-module includes of an API module from a shared api/ file: one
#                    directly in src/api/, or in src/api/request/ (the
#                    request, its parsing and errors, which every API shares)
#   openai-outside   includes of api/openai/ from outside it, src/app/ (the
#                    composition root) aside
#   instance-pool    files that include scheduler/instance_pool.h (its own
#                    .cc aside)
#   list             with "list" as $1: each counted line
set -euo pipefail
cd "$(dirname "$0")/.."
includes() { grep -rHn --include='*.h' --include='*.cc' '^#include "' src | sed 's/:[0-9]*:#include "/ /; s/"$//'; }
api_modules_re='^(admin|anthropic|ollama|openai|responses)$'
# The API module of a path under src/api/, or "" for a shared file.
module_of() {
  local p=$1 m
  p=${p#src/api/}
  [[ $p == */* ]] || { echo ""; return; }
  m=${p%%/*}
  [[ $m =~ $api_modules_re ]] && echo "$m" || echo ""
}
api_modules=() shared=() openai=() pool=()
while read -r file inc; do
  if [[ $file == src/api/* && $inc == api/*/* ]]; then
    from=$(module_of "$file"); to=$(module_of "src/$inc")
    if [[ -n $from && -n $to && $from != "$to" ]]; then api_modules+=("$file -> $inc"); fi
    if [[ -z $from && -n $to ]]; then shared+=("$file -> $inc"); fi
  fi
  if [[ $inc == api/openai/* && $file != src/api/openai/* && $file != src/app/* ]]; then
    openai+=("$file -> $inc")
  fi
  if [[ $inc == scheduler/instance_pool.h && $file != src/scheduler/instance_pool.cc ]]; then pool+=("$file"); fi
done < <(includes)
pool_files=$(printf '%s\n' "${pool[@]}" | sort -u | grep -c . || true)
echo "api-modules ${#api_modules[@]}"
echo "shared-to-module ${#shared[@]}"
echo "openai-outside ${#openai[@]}"
echo "instance-pool $pool_files"
if [[ ${1:-} == list ]]; then
  printf 'api-modules: %s\n' "${api_modules[@]}"
  printf 'shared-to-module: %s\n' "${shared[@]}"
  printf 'openai-outside: %s\n' "${openai[@]}"
  printf 'instance-pool: %s\n' "${pool[@]}"
fi
