// Refuses model files another local user could have swapped: a GGUF is
// parsed by the engine, so a file or directory anyone may write is a way to
// feed it crafted input (or a different model) behind zest's back. Checked
// before every engine start. Thread-safe (reads file metadata only).
#pragma once

#include "core/result.h"
#include "models/model_registry.h"

namespace zest::models {

// kInternal naming the model and the offending path (and the chmod that
// fixes it) when the model file, its projector, or a directory holding
// either (as named, and after following symlinks) is world-writable.
Status CheckModelFilesSafe(const ModelEntry& model);

}  // namespace zest::models
