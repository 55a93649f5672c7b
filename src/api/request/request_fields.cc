#include "api/request/request_fields.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace zest::api {

Result<Duration> ParseKeepAliveField(const nlohmann::json& value) {
  if (value.is_number_integer())
    return ParseDuration(std::to_string(value.get<int64_t>()), "keep_alive");
  if (value.is_number()) {
    double seconds = value.get<double>();
    if (!std::isfinite(seconds) || std::abs(seconds) > 1e9) {
      return InvalidArgument("keep_alive is out of range");
    }
    return seconds < 0 ? Duration(std::nullopt)
                       : Duration(std::chrono::milliseconds(std::llround(seconds * 1000)));
  }
  if (value.is_string()) return ParseDuration(value.get<std::string>(), "keep_alive");
  return InvalidArgument("keep_alive must be a duration string (\"10m\") or a number of seconds");
}

Status CheckLimits(const engines::ChatRequest& request, const RequestLimits& limits,
                   std::string* param) {
  if (request.messages.size() > static_cast<std::size_t>(limits.max_messages)) {
    *param = "messages";
    return InvalidArgument("'messages' has more than " + std::to_string(limits.max_messages) +
                           " entries (server.max_messages)");
  }
  if (request.max_tokens && *request.max_tokens > limits.max_tokens) {
    *param = "max_tokens";
    return InvalidArgument("'max_tokens' must be at most " + std::to_string(limits.max_tokens) +
                           " (server.max_tokens_cap)");
  }
  // A list of prompts runs each as a sequence of its own (n of them each):
  // 200 of them took every slot of the engine, the reserved ones too.
  const bool prompt_list = request.kind == engines::Capability::kCompletions &&
                           request.prompt.is_array() && !request.prompt.empty() &&
                           !request.prompt.front().is_number();
  if (prompt_list && request.prompt.size() > static_cast<std::size_t>(limits.max_prompts)) {
    *param = "prompt";
    return InvalidArgument("'prompt' holds " + std::to_string(request.prompt.size()) +
                           " prompts; at most " + std::to_string(limits.max_prompts) +
                           " in one request (server.max_prompts)");
  }
  const bool input_list = request.kind == engines::Capability::kEmbeddings &&
                          request.input.is_array() && !request.input.empty() &&
                          !request.input.front().is_number();
  if (input_list && request.input.size() > static_cast<std::size_t>(limits.max_inputs)) {
    *param = "input";
    return InvalidArgument("'input' holds " + std::to_string(request.input.size()) +
                           " inputs; at most " + std::to_string(limits.max_inputs) +
                           " in one request (server.max_inputs)");
  }
  const int64_t choices = engines::Choices(request);
  if (choices < 1 || choices > limits.max_choices) {
    *param = engines::ChoicesField(request);
    return InvalidArgument("'" + *param + "' must be an integer from 1 to " +
                           std::to_string(limits.max_choices) + " (server.max_choices)");
  }
  return Status::Ok();
}

}  // namespace zest::api
