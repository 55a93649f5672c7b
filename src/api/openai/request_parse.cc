#include "api/openai/request_parse.h"

#include <cmath>
#include <nlohmann/json.hpp>

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

// A generation longer than the cap is refused rather than silently cut.
Status CheckTokenCap(const json& body, int cap, std::string* param) {
  for (const char* field : {"max_tokens", "max_completion_tokens", "n_predict"}) {
    auto it = body.find(field);
    if (it == body.end() || !it->is_number()) continue;
    if (it->get<double>() > cap) {
      return Invalid(field, "must be at most " + std::to_string(cap) + " (server.max_tokens_cap)",
                     param);
    }
  }
  return Status::Ok();
}

Status CheckPayload(Endpoint endpoint, const json& body, std::string* param,
                    const RequestLimits& limits) {
  switch (endpoint) {
    case Endpoint::kChatCompletions: {
      auto it = body.find("messages");
      if (it == body.end()) return Missing("messages", param);
      if (!it->is_array() || it->empty()) return Invalid("messages", "must be a non-empty array", param);
      if (it->size() > static_cast<std::size_t>(limits.max_messages)) {
        return Invalid("messages", "has more than " + std::to_string(limits.max_messages) +
                                       " entries (server.max_messages)", param);
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
      if (!it->is_string() && !it->is_array()) return Invalid("prompt", "must be a string or an array", param);
      return Status::Ok();
    }
    case Endpoint::kEmbeddings: {
      auto it = body.find("input");
      if (it == body.end()) return Missing("input", param);
      if (!it->is_string() && !it->is_array()) return Invalid("input", "must be a string or an array", param);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Duration> ParseKeepAliveField(const json& value) {
  if (value.is_number_integer()) return ParseDuration(std::to_string(value.get<int64_t>()), "keep_alive");
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

const char* EnginePath(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kChatCompletions: return "/v1/chat/completions";
    case Endpoint::kCompletions: return "/v1/completions";
    case Endpoint::kEmbeddings: return "/v1/embeddings";
  }
  return "/";
}

bool JsonDeeperThan(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Result<InferenceRequest> ParseInferenceRequest(Endpoint endpoint, std::string_view body,
                                               std::string* param, const RequestLimits& limits) {
  if (JsonDeeperThan(body, limits.max_depth)) {
    return InvalidArgument("the request body nests deeper than " +
                           std::to_string(limits.max_depth) + " levels (server.max_json_depth)");
  }
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("the request body is not valid JSON");
  if (!doc.is_object()) return InvalidArgument("the request body must be a JSON object");
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
  ZEST_RETURN_IF_ERROR(CheckTokenCap(doc, limits.max_tokens, param));
  ZEST_RETURN_IF_ERROR(CheckPayload(endpoint, doc, param, limits));
  return request;
}

}  // namespace zest::api::openai
