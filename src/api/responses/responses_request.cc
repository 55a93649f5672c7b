#include "api/responses/responses_request.h"

#include <algorithm>
#include <set>

#include "api/json_body.h"
#include "core/base64.h"
#include "core/random_hex.h"

namespace zest::api::responses {
namespace {

using nlohmann::json;

using engines::ContentPart;
using engines::Message;

// A message's content: a string, or input_text / output_text / input_image
// parts (text only: one string).
Status SetContent(const json& content, const std::string& where, Message& message) {
  message.content = Message::Content::kText;
  if (content.is_string()) {
    message.text = content.get<std::string>();
    return Status::Ok();
  }
  if (!content.is_array()) return InvalidArgument(where + ".content must be a string or parts");
  std::vector<ContentPart> parts;
  bool images = false;
  std::string text;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const std::string at = where + ".content[" + std::to_string(i) + "]";
    const json& part = content[i];
    if (!part.is_object()) return InvalidArgument(at + " must be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(part, "type", at, true));
    if (type == "input_text" || type == "output_text" || type == "text") {
      ZEST_ASSIGN_OR_RETURN(std::string piece, StringMember(part, "text", at, true));
      text += piece;
      parts.push_back({.type = ContentPart::Type::kText, .text = std::move(piece)});
    } else if (type == "input_image") {
      // {type, image_url, detail?}: a part of any other shape is refused, not
      // read as an image zest did not check.
      const json url = part.value("image_url", json());
      const json href =
          url.is_object() && OnlyMembers(url, {"url"}) ? url.value("url", json()) : url;
      const bool shaped = OnlyMembers(part, {"type", "image_url", "detail", "file_id"}) &&
                          part.value("detail", json("auto")).is_string() &&
                          part.value("file_id", json()).is_null();
      if (!shaped) {
        return InvalidArgument(at + ": an input_image holds type, image_url and detail only");
      }
      if (!href.is_string()) {
        return InvalidArgument(at +
                               ".image_url is required (a URL or a data URL; file ids are "
                               "not supported)");
      }
      parts.push_back({.type = ContentPart::Type::kImage, .url = href.get<std::string>()});
      images = true;
    } else {
      return InvalidArgument(at + ".type '" + type + "' is not supported");
    }
  }
  if (images) {
    message.content = Message::Content::kParts;
    message.parts = std::move(parts);
  } else {
    message.text = std::move(text);
  }
  return Status::Ok();
}

// Reasoning an item carries (summary and reasoning_text), as plain text;
// without either, what zest put in its encrypted_content.
std::string ReasoningText(const json& item) {
  std::string text;
  for (const char* key : {"summary", "content"}) {
    const json parts = item.value(key, json::array());
    if (!parts.is_array()) continue;
    for (const json& part : parts) {
      if (part.is_object() && part.value("text", json()).is_string()) {
        if (!text.empty()) text += "\n";
        text += part["text"].get<std::string>();
      }
    }
  }
  if (const json blob = item.value("encrypted_content", json()); text.empty() && blob.is_string()) {
    text = ReasoningFromBlob(blob.get<std::string>()).value_or("");
  }
  return text;
}

// One input item into `messages`; `reasoning` carries reasoning items to
// the next assistant turn.
Status AddItem(const json& item, const std::string& where, const std::string& type,
               std::string& reasoning, std::vector<Message>& messages) {
  if (type == "message") {
    ZEST_ASSIGN_OR_RETURN(std::string role, StringMember(item, "role", where, true));
    if (role == "developer") role = "system";
    if (role != "user" && role != "system" && role != "assistant") {
      return InvalidArgument(where + ".role must be user, system, developer or assistant");
    }
    Message message;
    message.role = role;
    ZEST_RETURN_IF_ERROR(SetContent(item.value("content", json()), where, message));
    if (role == "assistant") message.reasoning = std::exchange(reasoning, "");
    messages.push_back(std::move(message));
  } else if (type == "function_call" || type == "custom_tool_call") {
    engines::ToolCall call;
    ZEST_ASSIGN_OR_RETURN(call.id, StringMember(item, "call_id", where, true));
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(item, "name", where, true));
    ZEST_ASSIGN_OR_RETURN(std::string ns, StringMember(item, "namespace", where));
    call.name = FlatToolName(ns, name);  // as the model saw the tool
    if (type == "custom_tool_call") {
      ZEST_ASSIGN_OR_RETURN(std::string input, StringMember(item, "input", where));
      call.arguments = json{{"input", input}}.dump();
    } else {
      ZEST_ASSIGN_OR_RETURN(call.arguments, StringMember(item, "arguments", where));
    }
    if (call.arguments.empty()) call.arguments = "{}";
    // Consecutive calls are one assistant turn (with its text, if any).
    Message* last = messages.empty() ? nullptr : &messages.back();
    if (last != nullptr && last->role == "assistant" && reasoning.empty()) {
      last->tool_calls.push_back(std::move(call));
    } else {
      Message message = Message::Text("assistant", "");
      message.tool_calls.push_back(std::move(call));
      message.reasoning = std::exchange(reasoning, "");
      messages.push_back(std::move(message));
    }
  } else if (type == "function_call_output" || type == "custom_tool_call_output") {
    ZEST_ASSIGN_OR_RETURN(std::string call_id, StringMember(item, "call_id", where, true));
    Message tool;
    tool.role = "tool";
    tool.tool_call_id = std::move(call_id);
    ZEST_RETURN_IF_ERROR(SetContent(item.value("output", json("")), where + ".output", tool));
    messages.push_back(std::move(tool));
  } else if (type == "reasoning") {
    reasoning += ReasoningText(item);
  } else {
    return InvalidArgument(where + ".type '" + type + "' is not supported");
  }
  return Status::Ok();
}

// `object` with only `keys`, those it has.
json Defined(const json& object, std::initializer_list<const char*> keys) {
  json out = json::object();
  for (const char* key : keys) {
    if (auto it = object.find(key); it != object.end()) out[key] = *it;
  }
  return out;
}

// `item[key]`, a list of content parts, with only the members the API
// defines for them.
void KeepDefinedParts(json& item, const char* key) {
  auto content = item.find(key);
  if (content == item.end() || !content->is_array()) return;
  for (json& part : *content) {
    if (part.is_object()) {
      part = Defined(part, {"type", "text", "image_url", "detail", "file_id", "annotations"});
    }
  }
}

// What is stored of an input item (read back by input_items and by a later
// previous_response_id): the members the Responses API defines for its
// type and nothing else, so a field zest never reads cannot fill the
// store (a client's padding never reaches a prompt, yet would count
// against its key's share).
json StoredItem(const json& item, const std::string& type) {
  json stored;
  if (type == "message") {
    stored = Defined(item, {"id", "role", "content", "status"});
    KeepDefinedParts(stored, "content");
  } else if (type == "function_call") {
    stored = Defined(item, {"id", "call_id", "name", "namespace", "arguments", "status"});
  } else if (type == "custom_tool_call") {
    stored = Defined(item, {"id", "call_id", "name", "namespace", "input", "status"});
  } else if (type == "function_call_output" || type == "custom_tool_call_output") {
    stored = Defined(item, {"id", "call_id", "output", "status"});
    KeepDefinedParts(stored, "output");
  } else {  // reasoning
    stored = Defined(item, {"id", "summary", "content", "encrypted_content", "status"});
    KeepDefinedParts(stored, "summary");
    KeepDefinedParts(stored, "content");
  }
  stored["type"] = type;
  if (!stored.contains("id")) stored["id"] = NewId(type == "message" ? "msg" : "item");
  return stored;
}

// Input items as messages, appended to `messages`; each item, with an id,
// to `items`.
Status AddItems(const json& input, std::vector<Message>& messages, json& items) {
  if (input.is_string()) {
    messages.push_back(Message::Text("user", input.get<std::string>()));
    items.push_back({{"type", "message"},
                     {"id", NewId("msg")},
                     {"role", "user"},
                     {"content", json::array({{{"type", "input_text"}, {"text", input}}})}});
    return Status::Ok();
  }
  if (!input.is_array()) return InvalidArgument("input must be a string or a list of items");
  std::string reasoning;  // for the next assistant turn
  for (std::size_t i = 0; i < input.size(); ++i) {
    const std::string where = "input[" + std::to_string(i) + "]";
    const json& item = input[i];
    if (!item.is_object()) return InvalidArgument(where + " must be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(item, "type", where));
    if (type.empty()) type = "message";
    ZEST_RETURN_IF_ERROR(AddItem(item, where, type, reasoning, messages));
    items.push_back(StoredItem(item, type));
  }
  return Status::Ok();
}

// The built-in tools of OpenAI's API, which only OpenAI runs: left out of
// the prompt (a local model cannot run them), refused only when forced.
bool IsHostedTool(const std::string& type) {
  static const std::set<std::string, std::less<>> kHosted = {
      "web_search",   "web_search_preview",   "file_search", "code_interpreter", "image_generation",
      "computer_use", "computer_use_preview", "mcp",         "local_shell",      "shell",
      "apply_patch",  "tool_search"};
  return kHosted.contains(type) || type.starts_with("web_search_preview_");
}

// A function or custom tool (in namespace `ns`) as a flat function.
Status AddTool(const json& tool, const std::string& at, const std::string& type,
               const std::string& ns, ResponsesJob& job) {
  engines::Tool function;
  ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(tool, "name", at, true));
  ZEST_ASSIGN_OR_RETURN(function.description, StringMember(tool, "description", at));
  if (type == "custom") {
    function.parameters = CustomToolParameters(tool);
  } else {
    function.parameters = tool.value("parameters", json{{"type", "object"}});
    if (tool.value("strict", json()).is_boolean()) function.strict = tool["strict"].get<bool>();
  }
  function.name = FlatToolName(ns, name);
  job.tools.Add({name, ns, type == "custom"});
  job.request.tools.push_back(std::move(function));
  return Status::Ok();
}

Status ReadTools(const json& tools, ResponsesJob& job) {
  if (!tools.is_array()) return InvalidArgument("tools must be a list");
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const json& tool = tools[i];
    if (!tool.is_object()) return InvalidArgument(at + " must be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(tool, "type", at, true));
    if (type == "function" || type == "custom") {
      ZEST_RETURN_IF_ERROR(AddTool(tool, at, type, "", job));
    } else if (type == "namespace") {
      ZEST_ASSIGN_OR_RETURN(std::string ns, StringMember(tool, "name", at, true));
      const json members = tool.value("tools", json());
      if (!members.is_array()) return InvalidArgument(at + ".tools must be a list");
      for (std::size_t k = 0; k < members.size(); ++k) {
        const std::string member_at = at + ".tools[" + std::to_string(k) + "]";
        const json& member = members[k];
        if (!member.is_object()) return InvalidArgument(member_at + " must be an object");
        ZEST_ASSIGN_OR_RETURN(std::string member_type,
                              StringMember(member, "type", member_at, true));
        if (member_type != "function" && member_type != "custom") {
          return InvalidArgument(member_at + ".type must be function or custom");
        }
        ZEST_RETURN_IF_ERROR(AddTool(member, member_at, member_type, ns, job));
      }
    } else if (!IsHostedTool(type)) {
      return InvalidArgument(at + ".type '" + type + "' is not a tool type of the Responses API");
    }
  }
  return Status::Ok();
}

Status ApplyToolChoice(const json& choice, engines::ChatRequest& request) {
  using Mode = engines::ToolChoice::Mode;
  if (choice.is_null()) return Status::Ok();
  if (choice == "auto" || choice == "none" || choice == "required") {
    request.tool_choice = engines::ToolChoice{choice == "auto"   ? Mode::kAuto
                                              : choice == "none" ? Mode::kNone
                                                                 : Mode::kRequired};
    return Status::Ok();
  }
  const json type = choice.is_object() ? choice.value("type", json()) : json();
  if (type == "function" || type == "custom") {
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(choice, "name", "tool_choice", true));
    ZEST_ASSIGN_OR_RETURN(std::string ns, StringMember(choice, "namespace", "tool_choice"));
    request.tool_choice = engines::ToolChoice{Mode::kFunction, FlatToolName(ns, name)};
    return Status::Ok();
  }
  if (type.is_string() && IsHostedTool(type.get<std::string>())) {
    return InvalidArgument("tool_choice forces " + type.get<std::string>() +
                           ", a built-in tool that only OpenAI runs; a local model cannot");
  }
  return InvalidArgument(
      "tool_choice must be auto, none, required or {\"type\": \"function\", \"name\"}");
}

Status ApplyTextFormat(const json& text, engines::ChatRequest& request) {
  if (text.is_null()) return Status::Ok();
  const json format = text.is_object() ? text.value("format", json()) : json();
  if (format.is_null()) return Status::Ok();
  const json type = format.is_object() ? format.value("type", json()) : json();
  if (type == "text") return Status::Ok();
  if (type == "json_object") {
    request.response_format = {{"type", "json_object"}};
  } else if (type == "json_schema") {
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(format, "name", "text.format", true));
    if (!format.value("schema", json()).is_object()) {
      return InvalidArgument("text.format.schema is required (a JSON schema)");
    }
    json schema = {{"name", name}, {"schema", format["schema"]}};
    if (format.value("strict", json()).is_boolean()) schema["strict"] = format["strict"];
    request.response_format = {{"type", "json_schema"}, {"json_schema", std::move(schema)}};
  } else {
    return InvalidArgument("text.format.type must be text, json_object or json_schema");
  }
  return Status::Ok();
}

// max_output_tokens, temperature, top_p, parallel_tool_calls, reasoning.
Status ApplySampling(const json& body, engines::ChatRequest& request) {
  if (auto max = body.find("max_output_tokens"); max != body.end() && !max->is_null()) {
    if (!max->is_number_integer() || max->get<int64_t>() < 1) {
      return InvalidArgument("max_output_tokens must be a positive integer");
    }
    request.max_tokens = max->get<int64_t>();
  }
  for (const char* key : {"temperature", "top_p"}) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_number()) return InvalidArgument(std::string(key) + " must be a number");
    (key == std::string_view("top_p") ? request.sampling.top_p : request.sampling.temperature) =
        it->get<double>();
  }
  if (auto parallel = body.find("parallel_tool_calls");
      parallel != body.end() && parallel->is_boolean()) {
    request.parallel_tool_calls = parallel->get<bool>();
  }
  if (const json reasoning = body.value("reasoning", json()); reasoning.is_object()) {
    const json effort = reasoning.value("effort", json());
    if (effort.is_string()) {
      request.reasoning_effort = effort.get<std::string>();
      request.thinking = effort != "none" && effort != "minimal";
    }
  }
  return Status::Ok();
}

}  // namespace

std::string NewId(const char* prefix) { return std::string(prefix) + "_" + RandomHex(16); }

namespace {
constexpr std::string_view kBlobMark = "zest1:";
}  // namespace

std::string ReasoningBlob(const std::string& text) {
  return std::string(kBlobMark) + Base64Encode(text);
}

std::optional<std::string> ReasoningFromBlob(const std::string& blob) {
  if (!blob.starts_with(kBlobMark)) return std::nullopt;
  return Base64Decode(std::string_view(blob).substr(kBlobMark.size()));
}

Result<ResponsesJob> ParseResponsesRequest(const json& body) {
  ResponsesJob job;
  engines::ChatRequest& request = job.request;
  ZEST_ASSIGN_OR_RETURN(request.model, StringMember(body, "model", "", true));
  if (request.model.empty()) return InvalidArgument("model is required");
  for (const char* key : {"stream", "store"}) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_boolean()) return InvalidArgument(std::string(key) + " must be true or false");
    (std::string_view(key) == "stream" ? request.stream : job.store) = it->get<bool>();
  }
  ZEST_ASSIGN_OR_RETURN(job.previous_response_id, StringMember(body, "previous_response_id", ""));
  ZEST_ASSIGN_OR_RETURN(std::string instructions, StringMember(body, "instructions", ""));
  if (!instructions.empty()) request.messages.push_back(Message::Text("system", instructions));
  const json input = body.value("input", json());
  if (input.is_null()) return InvalidArgument("input is required");
  ZEST_RETURN_IF_ERROR(AddItems(input, request.messages, job.input_items));
  if (auto tools = body.find("tools"); tools != body.end() && !tools->is_null()) {
    ZEST_RETURN_IF_ERROR(ReadTools(*tools, job));
  }
  ZEST_RETURN_IF_ERROR(ApplyToolChoice(body.value("tool_choice", json()), request));
  ZEST_RETURN_IF_ERROR(ApplyTextFormat(body.value("text", json()), request));
  ZEST_RETURN_IF_ERROR(ApplySampling(body, request));
  if (auto p = body.find("priority"); p != body.end() && p->is_string()) {
    request.priority = p->get<std::string>();
  }
  if (auto key = body.find("prompt_cache_key"); key != body.end() && key->is_string()) {
    job.session = key->get<std::string>();
  }
  request.include_usage = request.stream;
  if (const json include = body.value("include", json()); include.is_array()) {
    job.encrypted_reasoning = std::find(include.begin(), include.end(),
                                        json("reasoning.encrypted_content")) != include.end();
  }
  for (const char* key :
       {"instructions", "max_output_tokens", "metadata", "parallel_tool_calls", "reasoning",
        "temperature", "text", "tool_choice", "tools", "top_p", "user"}) {
    job.echo[key] = body.value(key, json());
  }
  return job;
}

void PrependConversation(std::vector<Message> conversation, ResponsesJob& job) {
  std::vector<Message>& messages = job.request.messages;
  // After this request's instructions (a system message first), if any.
  auto at = messages.begin();
  if (at != messages.end() && at->role == "system" && !job.echo["instructions"].is_null()) ++at;
  messages.insert(at, std::make_move_iterator(conversation.begin()),
                  std::make_move_iterator(conversation.end()));
}

}  // namespace zest::api::responses
