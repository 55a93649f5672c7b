// Model aliases: other names for a model (`[aliases]` in config.toml), so a
// client that insists on its own model names reaches a local model:
// "claude-*" = "qwen3-coder-30b", "gpt-4o" = "qwen3-8b". A pattern may use
// shell globs (*, ?, [...]), matched case-insensitively like model names.
// An exact alias wins over a glob; among globs the longest pattern (the
// most specific) wins, so the order in the file does not matter. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::models {

struct ModelAlias {
  std::string pattern;  // a name, or a glob
  std::string target;   // the model it stands for
};

// kInvalidArgument for an empty pattern or target, or a target that is a
// glob itself.
Status CheckAlias(const ModelAlias& alias);

// The model `name` stands for, or nullopt when no alias matches.
std::optional<std::string> ResolveAlias(const std::vector<ModelAlias>& aliases,
                                        std::string_view name);

}  // namespace zest::models
