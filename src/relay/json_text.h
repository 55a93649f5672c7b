// JSON as the API sends it: compact, and text that is not valid UTF-8 (an
// engine's bytes, a log line, a GGUF string) replaced with U+FFFD instead
// of nlohmann's exception.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace zest::relay {

inline std::string JsonText(const nlohmann::json& doc) {
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace zest::relay
