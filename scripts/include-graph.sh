#!/usr/bin/env bash
# The include-graph figures of issue 27, counted from the #include lines of
# src/ (tests beside the code included). Run from the repository root.
#   api-modules      includes from one API module (a folder under src/api/)
#                    of another
#   shared-to-module includes from a shared src/api/ file (no folder) of a
#                    module under src/api/
#   openai-outside   includes of api/openai/ from outside it, src/app/ (the
#                    composition root) aside
#   instance-pool    files that include scheduler/instance_pool.h (its own
#                    .cc aside)
#   list             with "list" as $1: each counted line
set -euo pipefail
cd "$(dirname "$0")/.."
includes() { grep -rHn --include='*.h' --include='*.cc' '^#include "' src | sed 's/:[0-9]*:#include "/ /; s/"$//'; }
module_of() { local p=$1; p=${p#src/api/}; [[ $p == */* ]] && echo "${p%%/*}" || echo ""; }
api_modules=() shared=() openai=() pool=()
while read -r file inc; do
  if [[ $file == src/api/* && $inc == api/*/* ]]; then
    from=$(module_of "$file"); to=$(module_of "src/$inc")
    if [[ -n $from && $from != "$to" ]]; then api_modules+=("$file -> $inc"); fi
    if [[ -z $from ]]; then shared+=("$file -> $inc"); fi
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
