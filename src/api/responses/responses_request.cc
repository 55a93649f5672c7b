#include "api/responses/responses_request.h"

#include "api/json_body.h"
#include "core/random_hex.h"

namespace zest::api::responses {
namespace {

using nlohmann::json;

// A message's content: a string, or input_text / output_text / input_image
// parts, as OpenAI chat content (a string when it is text only).
Result<json> Content(const json& content, const std::string& where) {
  if (content.is_string()) return content;
  if (!content.is_array()) return InvalidArgument(where + ".content must be a string or parts");
  json parts = json::array();
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
      parts.push_back({{"type", "text"}, {"text", piece}});
    } else if (type == "input_image") {
      const json url = part.value("image_url", json());
      const json href = url.is_object() ? url.value("url", json()) : url;
      if (!href.is_string()) {
        return InvalidArgument(at +
                               ".image_url is required (a URL or a data URL; file ids are "
                               "not supported)");
      }
      parts.push_back({{"type", "image_url"}, {"image_url", {{"url", href}}}});
      images = true;
    } else {
      return InvalidArgument(at + ".type '" + type + "' is not supported");
    }
  }
  if (images) return parts;
  return json(text);
}

// Reasoning an item carries (summary and reasoning_text), as plain text.
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
  return text;
}

// Input items as OpenAI chat messages, appended to `messages`; each item,
// with an id, to `items`.
Status AddItems(const json& input, json& messages, json& items) {
  if (input.is_string()) {
    messages.push_back({{"role", "user"}, {"content", input}});
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
    json stored = item;
    if (!stored.contains("id")) stored["id"] = NewId(type == "message" ? "msg" : "item");
    if (type == "message") {
      ZEST_ASSIGN_OR_RETURN(std::string role, StringMember(item, "role", where, true));
      if (role == "developer") role = "system";
      if (role != "user" && role != "system" && role != "assistant") {
        return InvalidArgument(where + ".role must be user, system, developer or assistant");
      }
      ZEST_ASSIGN_OR_RETURN(json content, Content(item.value("content", json()), where));
      json message = {{"role", role}, {"content", std::move(content)}};
      if (role == "assistant" && !reasoning.empty()) {
        message["reasoning_content"] = reasoning;
        reasoning.clear();
      }
      messages.push_back(std::move(message));
    } else if (type == "function_call") {
      ZEST_ASSIGN_OR_RETURN(std::string call_id, StringMember(item, "call_id", where, true));
      ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(item, "name", where, true));
      ZEST_ASSIGN_OR_RETURN(std::string arguments, StringMember(item, "arguments", where));
      json call = {
          {"id", call_id},
          {"type", "function"},
          {"function", {{"name", name}, {"arguments", arguments.empty() ? "{}" : arguments}}}};
      // Consecutive calls are one assistant turn (with its text, if any).
      json* last = messages.empty() ? nullptr : &messages.back();
      if (last != nullptr && (*last)["role"] == "assistant" && reasoning.empty()) {
        (*last)["tool_calls"].push_back(std::move(call));
      } else {
        json message = {{"role", "assistant"}, {"content", ""}, {"tool_calls", {std::move(call)}}};
        if (!reasoning.empty()) message["reasoning_content"] = std::exchange(reasoning, "");
        messages.push_back(std::move(message));
      }
    } else if (type == "function_call_output") {
      ZEST_ASSIGN_OR_RETURN(std::string call_id, StringMember(item, "call_id", where, true));
      const json output = item.value("output", json(""));
      ZEST_ASSIGN_OR_RETURN(json content, Content(output, where + ".output"));
      messages.push_back({{"role", "tool"}, {"tool_call_id", call_id}, {"content", content}});
    } else if (type == "reasoning") {
      reasoning += ReasoningText(item);
    } else {
      return InvalidArgument(where + ".type '" + type + "' is not supported");
    }
    items.push_back(std::move(stored));
  }
  return Status::Ok();
}

Result<json> Tools(const json& tools) {
  if (!tools.is_array()) return InvalidArgument("tools must be a list");
  json out = json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const json& tool = tools[i];
    if (!tool.is_object()) return InvalidArgument(at + " must be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(tool, "type", at, true));
    if (type != "function") {
      return InvalidArgument(at + ".type '" + type +
                             "' is a built-in tool, which a local model cannot run (function tools "
                             "only)");
    }
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(tool, "name", at, true));
    json function = {{"name", name},
                     {"parameters", tool.value("parameters", json{{"type", "object"}})}};
    ZEST_ASSIGN_OR_RETURN(std::string description, StringMember(tool, "description", at));
    if (!description.empty()) function["description"] = description;
    if (tool.value("strict", json()).is_boolean()) function["strict"] = tool["strict"];
    out.push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

Status ApplyToolChoice(const json& choice, json& body) {
  if (choice.is_null()) return Status::Ok();
  if (choice == "auto" || choice == "none" || choice == "required") {
    body["tool_choice"] = choice;
    return Status::Ok();
  }
  if (choice.is_object() && choice.value("type", json()) == "function") {
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(choice, "name", "tool_choice", true));
    body["tool_choice"] = {{"type", "function"}, {"function", {{"name", name}}}};
    return Status::Ok();
  }
  return InvalidArgument(
      "tool_choice must be auto, none, required or {\"type\": \"function\", \"name\"}");
}

Status ApplyTextFormat(const json& text, json& body) {
  if (text.is_null()) return Status::Ok();
  const json format = text.is_object() ? text.value("format", json()) : json();
  if (format.is_null()) return Status::Ok();
  const json type = format.is_object() ? format.value("type", json()) : json();
  if (type == "text") return Status::Ok();
  if (type == "json_object") {
    body["response_format"] = {{"type", "json_object"}};
  } else if (type == "json_schema") {
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(format, "name", "text.format", true));
    if (!format.value("schema", json()).is_object()) {
      return InvalidArgument("text.format.schema is required (a JSON schema)");
    }
    json schema = {{"name", name}, {"schema", format["schema"]}};
    if (format.value("strict", json()).is_boolean()) schema["strict"] = format["strict"];
    body["response_format"] = {{"type", "json_schema"}, {"json_schema", std::move(schema)}};
  } else {
    return InvalidArgument("text.format.type must be text, json_object or json_schema");
  }
  return Status::Ok();
}

}  // namespace

std::string NewId(const char* prefix) { return std::string(prefix) + "_" + RandomHex(16); }

Result<ResponsesJob> ParseResponsesRequest(const json& request) {
  ResponsesJob job;
  ZEST_ASSIGN_OR_RETURN(job.model, StringMember(request, "model", "", true));
  if (job.model.empty()) return InvalidArgument("model is required");
  for (const char* key : {"stream", "store"}) {
    auto it = request.find(key);
    if (it == request.end() || it->is_null()) continue;
    if (!it->is_boolean()) return InvalidArgument(std::string(key) + " must be true or false");
    (std::string_view(key) == "stream" ? job.stream : job.store) = it->get<bool>();
  }
  ZEST_ASSIGN_OR_RETURN(job.previous_response_id,
                        StringMember(request, "previous_response_id", ""));
  json& body = job.body = json::object();
  json messages = json::array();
  ZEST_ASSIGN_OR_RETURN(std::string instructions, StringMember(request, "instructions", ""));
  if (!instructions.empty()) messages.push_back({{"role", "system"}, {"content", instructions}});
  const json input = request.value("input", json());
  if (input.is_null()) return InvalidArgument("input is required");
  ZEST_RETURN_IF_ERROR(AddItems(input, messages, job.input_items));
  body["messages"] = std::move(messages);
  if (auto tools = request.find("tools"); tools != request.end() && !tools->is_null()) {
    ZEST_ASSIGN_OR_RETURN(json functions, Tools(*tools));
    if (!functions.empty()) body["tools"] = std::move(functions);
  }
  ZEST_RETURN_IF_ERROR(ApplyToolChoice(request.value("tool_choice", json()), body));
  ZEST_RETURN_IF_ERROR(ApplyTextFormat(request.value("text", json()), body));
  if (auto max = request.find("max_output_tokens"); max != request.end() && !max->is_null()) {
    if (!max->is_number_integer() || max->get<int64_t>() < 1) {
      return InvalidArgument("max_output_tokens must be a positive integer");
    }
    body["max_tokens"] = *max;
  }
  for (const char* key : {"temperature", "top_p"}) {
    auto it = request.find(key);
    if (it == request.end() || it->is_null()) continue;
    if (!it->is_number()) return InvalidArgument(std::string(key) + " must be a number");
    body[key] = *it;
  }
  if (auto parallel = request.find("parallel_tool_calls");
      parallel != request.end() && parallel->is_boolean()) {
    body["parallel_tool_calls"] = *parallel;
  }
  if (const json reasoning = request.value("reasoning", json()); reasoning.is_object()) {
    const json effort = reasoning.value("effort", json());
    if (effort.is_string()) {
      body["reasoning_effort"] = effort;
      body["chat_template_kwargs"] = {{"enable_thinking", effort != "none" && effort != "minimal"}};
    }
  }
  if (auto p = request.find("priority"); p != request.end() && p->is_string()) {
    job.priority = p->get<std::string>();
  }
  if (job.stream) body["stream_options"] = {{"include_usage", true}};
  for (const char* key :
       {"instructions", "max_output_tokens", "metadata", "parallel_tool_calls", "reasoning",
        "temperature", "text", "tool_choice", "tools", "top_p", "user"}) {
    job.echo[key] = request.value(key, json());
  }
  return job;
}

void PrependConversation(const json& conversation, ResponsesJob& job) {
  json& messages = job.body["messages"];
  // After this request's instructions (a system message first), if any.
  auto at = messages.begin();
  if (at != messages.end() && (*at)["role"] == "system" && !job.echo["instructions"].is_null())
    ++at;
  messages.insert(at, conversation.begin(), conversation.end());
}

}  // namespace zest::api::responses
