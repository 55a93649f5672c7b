#include "models/model_aliases.h"

#include <fnmatch.h>

namespace zest::models {
namespace {

bool IsGlob(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status CheckAlias(const ModelAlias& alias) {
  if (alias.pattern.empty()) return InvalidArgument("aliases: an alias needs a name or pattern");
  if (alias.target.empty() || IsGlob(alias.target)) {
    return InvalidArgument("aliases: \"" + alias.pattern +
                           "\" must name one model (not a pattern), e.g. \"qwen3-8b\"");
  }
  return Status::Ok();
}

std::optional<std::string> ResolveAlias(const std::vector<ModelAlias>& aliases,
                                        std::string_view name) {
  const ModelAlias* best = nullptr;
  const std::string text(name);
  for (const ModelAlias& alias : aliases) {
    if (!IsGlob(alias.pattern)) {
      if (SameName(alias.pattern, name)) return alias.target;  // exact wins
      continue;
    }
    if (fnmatch(alias.pattern.c_str(), text.c_str(), FNM_CASEFOLD) != 0) continue;
    if (best == nullptr || alias.pattern.size() > best->pattern.size()) best = &alias;
  }
  if (best == nullptr) return std::nullopt;
  return best->target;
}

}  // namespace zest::models
