#!/usr/bin/env bash
# `make run`: starts zest on http://127.0.0.1:9378 with the models in
# $ZEST_HOME/models. When there are none, writes a starter model first.
set -euo pipefail
cd "$(dirname "$0")/.."

home=${ZEST_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/zest}
models=${ZEST_MODELS_DIR:-$home/models}
mkdir -p "$models"

if ! compgen -G "$models/*.gguf" >/dev/null; then
  cat >&2 <<MSG
************************************************************************
 No models in $models.
 Writing a SYNTHETIC starter model (random weights): it PRODUCES GIBBERISH.
 It only shows that zest and its engine work. For a real model, put a
 .gguf file in $models (or use \`zest add NAME PATH\`).
************************************************************************
MSG
  build/zest-make-model --preset small --name zest-starter --out "$models/zest-starter.gguf"
fi

exec build/zest serve "$@"
