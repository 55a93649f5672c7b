#include "api/openai/request_parse.h"

#include <nlohmann/json.hpp>

#include "api/json_body.h"
#include "api/openai/tool_choice.h"

namespace zest::api::openai {
namespace {

using nlohmann::json;

Status Missing(std::string_view field, std::string* param) {
  if (param) *param = field;
  return InvalidArgument("'" + std::string(field) + "' is required");
}

Status Invalid(std::string_view field, std::string_view why, std::string* param) {
  if (param) *param = field;
  return InvalidArgument("'" + std::string(field) + "' " + std::string(why));
}

// A generation longer than the cap is refused rather than silently cut, and
// so is "-1" (llama-server's "until the context is full"): without a limit
// one request could hold a slot for the whole context. Whether any of the
// fields was given goes to `*given`.
Status CheckMaxTokens(const json& body, int cap, std::string* param, bool* given) {
  for (const char* field : {"max_tokens", "max_completion_tokens", "n_predict"}) {
    auto it = body.find(field);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_number_integer()) return Invalid(field, "must be an integer", param);
    if (it->get<int64_t>() < 0) {
      return Invalid(field,
                     "must be a number of tokens from 0 to " + std::to_string(cap) +
                         " (-1, until the context is full, is not accepted)",
                     param);
    }
    if (it->get<int64_t>() > cap) {
      return Invalid(field, "must be at most " + std::to_string(cap) + " (server.max_tokens_cap)",
                     param);
    }
    *given = true;
  }
  return Status::Ok();
}

Status CheckPayload(Endpoint endpoint, const json& body, std::string* param,
                    const RequestLimits& limits) {
  switch (endpoint) {
    case Endpoint::kChatCompletions: {
      auto it = body.find("messages");
      if (it == body.end()) return Missing("messages", param);
      if (!it->is_array() || it->empty())
        return Invalid("messages", "must be a non-empty array", param);
      if (it->size() > static_cast<std::size_t>(limits.max_messages)) {
        return Invalid("messages",
                       "has more than " + std::to_string(limits.max_messages) +
                           " entries (server.max_messages)",
                       param);
      }
      for (const json& m : *it) {
        if (!m.is_object() || !m.contains("role")) {
          return Invalid("messages", "must contain objects with a 'role'", param);
        }
      }
      return Status::Ok();
    }
    case Endpoint::kCompletions: {
      auto it = body.find("prompt");
      if (it == body.end()) return Missing("prompt", param);
      if (!it->is_string() && !it->is_array())
        return Invalid("prompt", "must be a string or an array", param);
      return Status::Ok();
    }
    case Endpoint::kEmbeddings: {
      auto it = body.find("input");
      if (it == body.end()) return Missing("input", param);
      if (!it->is_string() && !it->is_array())
        return Invalid("input", "must be a string or an array", param);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

const char* EnginePath(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kChatCompletions:
      return "/v1/chat/completions";
    case Endpoint::kCompletions:
      return "/v1/completions";
    case Endpoint::kEmbeddings:
      return "/v1/embeddings";
  }
  return "/";
}

Result<InferenceRequest> ParseInferenceRequest(Endpoint endpoint, std::string_view body,
                                               std::string* param, const RequestLimits& limits) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  InferenceRequest request;
  auto model = doc.find("model");
  if (model == doc.end()) return Missing("model", param);
  if (!model->is_string() || model->get_ref<const std::string&>().empty()) {
    return Invalid("model", "must be a non-empty string", param);
  }
  request.model = model->get<std::string>();
  if (auto stream = doc.find("stream"); stream != doc.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return Invalid("stream", "must be a boolean", param);
    request.stream = stream->get<bool>();
  }
  if (auto priority = doc.find("priority"); priority != doc.end() && !priority->is_null()) {
    if (!priority->is_string()) return Invalid("priority", "must be a string", param);
    request.priority = priority->get<std::string>();
  }
  if (auto keep = doc.find("keep_alive"); keep != doc.end() && !keep->is_null()) {
    auto parsed = ParseKeepAliveField(*keep);
    if (!parsed.ok()) {
      if (param) *param = "keep_alive";
      return parsed.status();
    }
    request.keep_alive = *parsed;
  }
  ZEST_RETURN_IF_ERROR(CheckMaxTokens(doc, limits.max_tokens, param, &request.max_tokens_given));
  request.names_a_tool = NamesATool(doc);
  ZEST_RETURN_IF_ERROR(CheckPayload(endpoint, doc, param, limits));
  return request;
}

std::string WithMaxTokens(std::string body, int max_tokens) {
  std::size_t open = body.find('{');
  if (open == std::string::npos) return body;
  std::size_t next = body.find_first_not_of(" \t\r\n", open + 1);
  const bool empty = next != std::string::npos && body[next] == '}';
  body.insert(open + 1, "\"max_tokens\":" + std::to_string(max_tokens) + (empty ? "" : ","));
  return body;
}

}  // namespace zest::api::openai
