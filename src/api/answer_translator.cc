#include "api/answer_translator.h"

namespace zest::api {

Status EngineErrorStatus(int status, std::string_view body) {
  const nlohmann::json answer = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message;
  if (answer.is_object()) {
    const nlohmann::json error = answer.value("error", nlohmann::json());
    const nlohmann::json text =
        error.is_object() ? error.value("message", nlohmann::json()) : error;
    if (text.is_string()) message = text.get<std::string>();
  }
  if (message.empty()) message = std::string(body.substr(0, 300));
  message = "the engine answered " + std::to_string(status) + ": " + message;
  if (status == 404) return NotFound(std::move(message));
  if (status >= 400 && status < 500) return InvalidArgument(std::move(message));
  return EngineFailed(std::move(message));
}

}  // namespace zest::api
