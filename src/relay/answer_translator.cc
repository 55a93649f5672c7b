#include "relay/answer_translator.h"

namespace zest::relay {
namespace {

using nlohmann::json;

// `object[key]` when it is a string, else "".
std::string Text(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<std::string> AnswerTranslator::StreamEvent(EngineEvent& event) {
  if (event.done()) return End();
  const json& chunk = event.Doc();
  if (!chunk.is_object()) return std::string();
  if (auto error = chunk.find("error"); error != chunk.end()) {
    const json code = error->is_object() ? error->value("code", json()) : json(500);
    return StreamError(
        EngineErrorStatus(code.is_number_integer() ? code.get<int>() : 500, event.Text()));
  }
  return Chunk(chunk);
}

std::string AnswerTranslator::StreamEnd(bool whole, std::string_view /*pending*/) {
  if (whole) return "";
  return StreamError(EngineFailed("the engine's stream ended before the answer did"));
}

std::string AnswerTranslator::ErrorEvent(int status, std::string_view body) {
  return StreamError(EngineErrorStatus(status, body));
}

// By value for the translators that keep the body (the pass-through).
// NOLINTNEXTLINE(performance-unnecessary-value-param)
Result<ApiAnswer> AnswerTranslator::Answer(int status, std::string body,
                                           std::string_view /*content_type*/,
                                           const std::string* /*rename*/) {
  if (status != 200) return EngineErrorStatus(status, body);
  const json answer = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) return EngineFailed("the engine's answer is not JSON");
  ZEST_ASSIGN_OR_RETURN(std::string out, Whole(answer));
  return ApiAnswer{200, "application/json", std::move(out)};
}

ChatChunk ReadChatChunk(const json& chunk) {
  ChatChunk out;
  if (const auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
    out.usage = *usage;
  }
  if (const auto timings = chunk.find("timings"); timings != chunk.end() && timings->is_object()) {
    out.timings = *timings;
  }
  const auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty() ||
      !(*choices)[0].is_object()) {
    return out;
  }
  const json& choice = (*choices)[0];
  if (const auto reason = choice.find("finish_reason");
      reason != choice.end() && reason->is_string()) {
    out.finish_reason = reason->get<std::string>();
  }
  const auto delta = choice.find("delta");
  if (delta == choice.end() || !delta->is_object()) {
    out.content = Text(choice, "text");  // a text completion's chunk
    return out;
  }
  out.content = Text(*delta, "content");
  out.reasoning = Text(*delta, "reasoning_content");
  const auto calls = delta->find("tool_calls");
  if (calls == delta->end() || !calls->is_array()) return out;
  for (const json& call : *calls) {
    if (!call.is_object()) continue;
    ChatChunk::ToolCall fragment;
    const auto index = call.find("index");
    if (index != call.end() && index->is_number_integer()) fragment.index = index->get<int>();
    fragment.id = Text(call, "id");
    if (const auto fn = call.find("function"); fn != call.end() && fn->is_object()) {
      fragment.name = Text(*fn, "name");
      fragment.arguments = Text(*fn, "arguments");
    }
    out.tool_calls.push_back(std::move(fragment));
  }
  return out;
}

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

}  // namespace zest::relay
