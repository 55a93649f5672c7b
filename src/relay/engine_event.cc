#include "relay/engine_event.h"

#include "relay/json_text.h"

namespace zest::relay {

bool EngineEvent::MayCarryCounts() const {
  return data_.find("\"usage\"") != std::string_view::npos ||
         data_.find("\"timings\"") != std::string_view::npos;
}

const nlohmann::json& EngineEvent::Doc() {
  if (!doc_) doc_ = nlohmann::json::parse(data_, nullptr, /*allow_exceptions=*/false);
  return *doc_;
}

nlohmann::json& EngineEvent::MutableDoc() {
  Doc();
  changed_ = true;
  text_.reset();
  return *doc_;
}

std::string_view EngineEvent::Text() {
  if (!changed_) return data_;
  if (!text_) text_ = JsonText(*doc_);
  return *text_;
}

}  // namespace zest::relay
