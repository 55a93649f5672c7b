#include "api/request/messages_json.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "api/json_body.h"

namespace zest::api {
namespace {

using engines::ContentPart;
using engines::Message;
using nlohmann::json;

// The rest of an object once its modelled members are taken: null when
// nothing is left, so that most messages carry no copy of an empty object.
json Rest(json&& object) { return object.empty() ? json() : std::move(object); }

// What a part of each type may hold: an allow-list, because whatever a
// part holds reaches the engine. An image part with one more member was a
// part zest did not model, passed on as it came, past every image limit
// (llama-server decoded it, or fetched its URL itself); an unknown part
// type could be one the engine reads in a later version.
Status PartError(const std::string& where, const std::string& why) {
  return InvalidArgument(where + ": " + why);
}

// {type: "text", text} (and cache_control, which clients of prompt-caching
// APIs send: text only, passed on as it came).
Result<ContentPart> TextPart(json part, const std::string& where) {
  if (!part.value("text", json()).is_string() ||
      !OnlyMembers(part, {"type", "text", "cache_control"})) {
    return PartError(where, "a text part is {\"type\": \"text\", \"text\": \"...\"}");
  }
  ContentPart out;
  out.type = ContentPart::Type::kText;
  out.text = TakeMember(part, "text").get<std::string>();
  part.erase("type");
  out.extra = Rest(std::move(part));
  return out;
}

// The object of a part shaped {type, `key`: {...}} and nothing else, with
// the string members `required` and, when present, `optional` in it and no
// other; null for any other shape.
const json* NestedPart(const json& part, const char* key,
                       std::initializer_list<const char*> required,
                       std::initializer_list<const char*> optional = {}) {
  auto inner = part.find(key);
  if (!OnlyMembers(part, {"type", key}) || inner == part.end() || !inner->is_object())
    return nullptr;
  std::vector<std::string> allowed(required.begin(), required.end());
  allowed.insert(allowed.end(), optional.begin(), optional.end());
  for (const auto& [name, value] : inner->items()) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end() || !value.is_string()) {
      return nullptr;
    }
  }
  for (const char* name : required) {
    if (!inner->contains(name)) return nullptr;
  }
  return &*inner;
}

// {type: "image_url", image_url: {url, detail?}}.
Result<ContentPart> ImagePart(const json& part, const std::string& where) {
  const json* image = NestedPart(part, "image_url", {"url"}, {"detail"});
  if (image == nullptr) {
    return PartError(where,
                     "an image part is {\"type\": \"image_url\", \"image_url\": {\"url\": "
                     "\"...\", \"detail\": \"auto\"}} and nothing else");
  }
  ContentPart out;
  out.type = ContentPart::Type::kImage;
  out.url = (*image)["url"].get<std::string>();
  out.detail = image->value("detail", "");
  return out;
}

// {type: "input_audio", input_audio: {data, format}}: passed on whole
// (kOther) once its shape is checked; its bytes are checked before the
// request is admitted (api/chat_audio.h).
Result<ContentPart> AudioPart(json part, const std::string& where) {
  if (NestedPart(part, "input_audio", {"data", "format"}) == nullptr) {
    return PartError(where,
                     "an audio part is {\"type\": \"input_audio\", \"input_audio\": "
                     "{\"data\": \"BASE64\", \"format\": \"wav\"}} and nothing else");
  }
  ContentPart out;
  out.type = ContentPart::Type::kOther;
  out.extra = std::move(part);
  return out;
}

Result<ContentPart> Part(json part, const std::string& where) {
  const json type = part.is_object() ? part.value("type", json()) : json();
  if (type == "text") return TextPart(std::move(part), where);
  if (type == "image_url") return ImagePart(part, where);
  if (type == "input_audio") return AudioPart(std::move(part), where);
  return PartError(where, "a part's type is text, image_url or input_audio");
}

// OpenAI's tool calls, when each is {id?, type?: "function", function:
// {name, arguments}} with string values; nullopt for another shape.
std::optional<std::vector<engines::ToolCall>> ToolCalls(const json& calls) {
  if (!calls.is_array()) return std::nullopt;
  std::vector<engines::ToolCall> out;
  for (const json& call : calls) {
    if (!call.is_object() || !OnlyMembers(call, {"id", "type", "function"})) return std::nullopt;
    const json fn = call.value("function", json());
    const bool fits = call.value("id", json("")).is_string() &&
                      call.value("type", json("function")) == "function" && fn.is_object() &&
                      OnlyMembers(fn, {"name", "arguments"}) &&
                      fn.value("name", json()).is_string() &&
                      fn.value("arguments", json("")).is_string();
    if (!fits) return std::nullopt;
    out.push_back({.id = call.value("id", ""),
                   .name = fn["name"].get<std::string>(),
                   .arguments = fn.value("arguments", "")});
  }
  return out;
}

Status SetContent(json content, const std::string& where, Message& out) {
  if (content.is_string()) {
    out.content = Message::Content::kText;
    out.text = std::move(content.get_ref<std::string&>());
  } else if (content.is_array()) {
    out.content = Message::Content::kParts;
    for (std::size_t i = 0; i < content.size(); ++i) {
      ZEST_ASSIGN_OR_RETURN(ContentPart part, Part(std::move(content[i]),
                                                   where + ".content[" + std::to_string(i) + "]"));
      out.parts.push_back(std::move(part));
    }
  } else if (!content.is_null()) {
    return InvalidArgument(where + ".content must be a string, a list of parts or null");
  }
  return Status::Ok();
}

Result<Message> ReadMessage(json m, const std::string& where) {
  if (!m.is_object() || !m.value("role", json()).is_string()) {
    return InvalidArgument("'messages' must contain objects with a 'role'");
  }
  Message out;
  out.role = TakeMember(m, "role").get<std::string>();
  auto content = m.find("content");
  if (content == m.end()) {
    out.content = Message::Content::kAbsent;
  } else {
    out.content = Message::Content::kNull;
    ZEST_RETURN_IF_ERROR(SetContent(TakeMember(m, "content"), where, out));
  }
  if (m.value("reasoning_content", json()).is_string()) {
    out.reasoning = TakeMember(m, "reasoning_content").get<std::string>();
  }
  if (m.value("tool_call_id", json()).is_string()) {
    out.tool_call_id = TakeMember(m, "tool_call_id").get<std::string>();
  }
  if (auto calls = m.find("tool_calls"); calls != m.end()) {
    if (std::optional<std::vector<engines::ToolCall>> typed = ToolCalls(*calls)) {
      out.tool_calls = std::move(*typed);
      m.erase(calls);
    }
  }
  out.extra = Rest(std::move(m));
  return out;
}

}  // namespace

Result<std::vector<engines::Message>> MessagesFromJson(json messages) {
  if (!messages.is_array()) return InvalidArgument("'messages' must be a list");
  std::vector<Message> out;
  out.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    ZEST_ASSIGN_OR_RETURN(Message message, ReadMessage(std::move(messages[i]),
                                                       "messages[" + std::to_string(i) + "]"));
    out.push_back(std::move(message));
  }
  return out;
}

}  // namespace zest::api
