#include "api/openai/request_parse.h"

#include <nlohmann/json.hpp>

#include "api/json_body.h"
#include "api/request/messages_json.h"
#include "api/request/sampling_fields.h"
#include "api/request/tools_json.h"

namespace zest::api::openai {
namespace {

using engines::Capability;
using engines::ChatRequest;
using engines::ToolChoice;
using nlohmann::json;

Status Missing(std::string_view field, std::string* param) {
  if (param) *param = field;
  return InvalidArgument("'" + std::string(field) + "' is required");
}

Status Invalid(std::string_view field, std::string_view why, std::string* param) {
  if (param) *param = field;
  return InvalidArgument("'" + std::string(field) + "' " + std::string(why));
}

// model, stream, priority and keep_alive.
Status ReadRouting(json& doc, ChatRequest& request, std::string* param) {
  json model = TakeMember(doc, "model");
  if (model.is_null()) return Missing("model", param);
  if (!model.is_string() || model.get_ref<const std::string&>().empty()) {
    return Invalid("model", "must be a non-empty string", param);
  }
  request.model = std::move(model.get_ref<std::string&>());
  if (json stream = TakeMember(doc, "stream"); !stream.is_null()) {
    if (!stream.is_boolean()) return Invalid("stream", "must be a boolean", param);
    request.stream = stream.get<bool>();
  }
  if (json priority = TakeMember(doc, "priority"); !priority.is_null()) {
    if (!priority.is_string()) return Invalid("priority", "must be a string", param);
    request.priority = priority.get<std::string>();
  }
  if (json keep = TakeMember(doc, "keep_alive"); !keep.is_null()) {
    auto parsed = ParseKeepAliveField(keep);
    if (!parsed.ok()) {
      if (param) *param = "keep_alive";
      return parsed.status();
    }
    request.keep_alive = *parsed;
  }
  return Status::Ok();
}

// A generation longer than the cap is refused rather than silently cut, and
// so is "-1" (llama-server's "until the context is full"): without a limit
// one request could hold a slot for the whole context. The answer's limit
// is the smallest given.
Status ReadMaxTokens(json& doc, int cap, ChatRequest& request, std::string* param) {
  for (const char* field : {"max_tokens", "max_completion_tokens", "n_predict"}) {
    json value = TakeMember(doc, field);
    if (value.is_null()) continue;
    if (!value.is_number_integer()) return Invalid(field, "must be an integer", param);
    const int64_t tokens = value.get<int64_t>();
    if (tokens < 0) {
      return Invalid(field,
                     "must be a number of tokens from 0 to " + std::to_string(cap) +
                         " (-1, until the context is full, is not accepted)",
                     param);
    }
    if (tokens > cap) {
      return Invalid(field, "must be at most " + std::to_string(cap) + " (server.max_tokens_cap)",
                     param);
    }
    request.max_tokens = std::min(request.max_tokens.value_or(tokens), tokens);
  }
  return Status::Ok();
}

Status ReadMessages(json& doc, const RequestLimits& limits, ChatRequest& request,
                    std::string* param) {
  json messages = TakeMember(doc, "messages");
  if (messages.is_null()) return Missing("messages", param);
  if (!messages.is_array() || messages.empty()) {
    return Invalid("messages", "must be a non-empty array", param);
  }
  if (messages.size() > static_cast<std::size_t>(limits.max_messages)) {
    return Invalid(
        "messages",
        "has more than " + std::to_string(limits.max_messages) + " entries (server.max_messages)",
        param);
  }
  Result<std::vector<engines::Message>> typed = MessagesFromJson(std::move(messages));
  if (!typed.ok()) {
    if (param) *param = "messages";
    return typed.status();
  }
  request.messages = std::move(*typed);
  return Status::Ok();
}

// What the request asks of the model: messages, a prompt or an input.
Status ReadPayload(json& doc, const RequestLimits& limits, ChatRequest& request,
                   std::string* param) {
  switch (request.kind) {
    case Capability::kCompletions:
    case Capability::kEmbeddings: {
      const char* field = request.kind == Capability::kCompletions ? "prompt" : "input";
      json value = TakeMember(doc, field);
      if (value.is_null()) return Missing(field, param);
      if (!value.is_string() && !value.is_array())
        return Invalid(field, "must be a string or an array", param);
      (request.kind == Capability::kCompletions ? request.prompt : request.input) =
          std::move(value);
      return Status::Ok();
    }
    default:
      return ReadMessages(doc, limits, request, param);
  }
}

Status ReadTools(json& doc, ChatRequest& request, std::string* param) {
  Result<std::vector<engines::Tool>> tools = ToolsFromJson(TakeMember(doc, "tools"));
  if (!tools.ok()) {
    if (param) *param = "tools";
    return tools.status();
  }
  request.tools = std::move(*tools);
  return Status::Ok();
}

Status ReadToolChoice(json& doc, ChatRequest& request, std::string* param) {
  json choice = TakeMember(doc, "tool_choice");
  if (choice.is_null()) return Status::Ok();
  if (choice == "auto" || choice == "none" || choice == "required") {
    request.tool_choice = ToolChoice{choice == "auto"   ? ToolChoice::Mode::kAuto
                                     : choice == "none" ? ToolChoice::Mode::kNone
                                                        : ToolChoice::Mode::kRequired};
    return Status::Ok();
  }
  const json function = choice.is_object() ? choice.value("function", json()) : json();
  if (choice.is_object() && choice.value("type", json()) == "function" && function.is_object() &&
      function.value("name", json()).is_string()) {
    request.tool_choice = ToolChoice{ToolChoice::Mode::kFunction, function["name"]};
    return Status::Ok();
  }
  if (param) *param = "tool_choice";
  return InvalidArgument(
      "tool_choice must be \"auto\", \"none\", \"required\" or "
      "{\"type\": \"function\", \"function\": {\"name\": ...}}");
}

// What shapes the answer and zest models: response_format, reasoning
// effort, parallel tool calls, usage in a stream. Of another type than
// OpenAI's, they pass on as they came (the engine says what it makes of
// them).
void ReadShape(json& doc, ChatRequest& request) {
  if (doc.value("response_format", json()).is_object()) {
    request.response_format = TakeMember(doc, "response_format");
  }
  if (doc.value("reasoning_effort", json()).is_string()) {
    request.reasoning_effort = TakeMember(doc, "reasoning_effort").get<std::string>();
  }
  if (doc.value("parallel_tool_calls", json()).is_boolean()) {
    request.parallel_tool_calls = TakeMember(doc, "parallel_tool_calls").get<bool>();
  }
  // stream_options passes on whole; its include_usage is the request's.
  const json options = doc.value("stream_options", json());
  request.include_usage = options.is_object() && options.value("include_usage", json()) == true;
}

}  // namespace

Result<ChatRequest> ParseInferenceRequest(Capability kind, std::string_view body,
                                          std::string* param, const RequestLimits& limits) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  ChatRequest request;
  request.kind = kind;
  ZEST_RETURN_IF_ERROR(ReadRouting(doc, request, param));
  ZEST_RETURN_IF_ERROR(ReadMaxTokens(doc, limits.max_tokens, request, param));
  ZEST_RETURN_IF_ERROR(ReadPayload(doc, limits, request, param));
  if (kind != Capability::kEmbeddings) {
    ZEST_RETURN_IF_ERROR(ReadTools(doc, request, param));
    ZEST_RETURN_IF_ERROR(ReadToolChoice(doc, request, param));
    ZEST_RETURN_IF_ERROR(TakeSampling(doc, request.sampling, param));
    ReadShape(doc, request);
  }
  request.extra = std::move(doc);
  return request;
}

std::string TakePromptCacheKey(engines::ChatRequest& request) {
  auto key = request.extra.find("prompt_cache_key");
  if (key == request.extra.end() || !key->is_string()) return "";
  std::string session = key->get<std::string>();
  request.extra.erase(key);
  return session;
}

}  // namespace zest::api::openai
