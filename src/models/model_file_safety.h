// Refuses model files another local user could have swapped: a GGUF is
// parsed by the engine, so a file or directory anyone may write is a way to
// feed it crafted input (or a different model) behind zest's back. Checked
// before every engine start. Thread-safe (reads file metadata only).
#pragma once

#include <filesystem>
#include <vector>

#include "core/result.h"
#include "models/model_registry.h"

namespace zest::models {

// kInternal naming the model and the offending path (and the chmod that
// fixes it) when the model file, its projector or vocoder, or a directory
// holding one (as named, and after following symlinks) is world-writable.
Status CheckModelFilesSafe(const ModelEntry& model);

// The same for every file the engine reads for `model` (the scheduler's
// list: the other shards of a split model, a draft model and its shards,
// the projector, the vocoder).
Status CheckModelFilesSafe(const ModelEntry& model,
                           const std::vector<std::filesystem::path>& files);

}  // namespace zest::models
