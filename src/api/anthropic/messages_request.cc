#include "api/anthropic/messages_request.h"

#include "api/json_body.h"
#include "api/json_text.h"

namespace zest::api::anthropic {
namespace {

using nlohmann::json;

// An image block's source as an OpenAI image part.
Result<json> ImagePart(const json& block, const std::string& where) {
  const json source = block.value("source", json());
  if (!source.is_object()) return InvalidArgument(where + ".source: Field required");
  ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(source, "type", where + ".source", true));
  std::string url;
  if (type == "base64") {
    ZEST_ASSIGN_OR_RETURN(std::string media,
                          StringMember(source, "media_type", where + ".source", true));
    ZEST_ASSIGN_OR_RETURN(std::string data, StringMember(source, "data", where + ".source", true));
    url = "data:" + media + ";base64," + data;
  } else if (type == "url") {
    ZEST_ASSIGN_OR_RETURN(url, StringMember(source, "url", where + ".source", true));
  } else {
    return InvalidArgument(where + ".source.type: '" + type + "' is not supported (base64 or url)");
  }
  return json{{"type", "image_url"}, {"image_url", {{"url", url}}}};
}

// Text and image blocks (a tool result's, or a user turn's) as OpenAI
// content: a string when it is text only.
struct Parts {
  json parts = json::array();
  bool images = false;
  json Content() const {
    if (images) return parts;
    std::string text;
    for (const json& part : parts) text += part["text"].get<std::string>();
    return text;
  }
};

// A tool_result's content: a string, or text/image blocks.
Result<json> ToolResultContent(const json& block, const std::string& where) {
  const json content = block.value("content", json(""));
  std::string text;
  if (content.is_string()) {
    text = content.get<std::string>();
  } else if (content.is_array()) {
    for (std::size_t i = 0; i < content.size(); ++i) {
      const std::string at = where + ".content[" + std::to_string(i) + "]";
      ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(content[i], "type", at, true));
      if (type != "text") {
        return InvalidArgument(at + ".type: tool results hold text here, not '" + type + "'");
      }
      ZEST_ASSIGN_OR_RETURN(std::string piece, StringMember(content[i], "text", at, true));
      text += piece;
    }
  } else if (!content.is_null()) {
    return InvalidArgument(where + ".content: a string or content blocks");
  }
  if (block.value("is_error", json(false)) == true) text = "Error: " + text;
  return json(text);
}

// One Anthropic message as OpenAI messages, appended to `out`.
Status AddMessage(const json& message, const std::string& where, json& out) {
  if (!message.is_object()) return InvalidArgument(where + ": Input should be an object");
  ZEST_ASSIGN_OR_RETURN(std::string role, StringMember(message, "role", where, true));
  if (role != "user" && role != "assistant") {
    return InvalidArgument(where + ".role: Input should be 'user' or 'assistant'");
  }
  const json content = message.value("content", json());
  if (content.is_string()) {
    out.push_back({{"role", role}, {"content", content}});
    return Status::Ok();
  }
  if (!content.is_array()) return InvalidArgument(where + ".content: a string or content blocks");
  Parts parts;
  std::string thinking;
  json tool_calls = json::array();
  for (std::size_t i = 0; i < content.size(); ++i) {
    const json& block = content[i];
    const std::string at = where + ".content[" + std::to_string(i) + "]";
    if (!block.is_object()) return InvalidArgument(at + ": Input should be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(block, "type", at, true));
    if (type == "text") {
      ZEST_ASSIGN_OR_RETURN(std::string text, StringMember(block, "text", at, true));
      parts.parts.push_back({{"type", "text"}, {"text", text}});
    } else if (type == "image") {
      ZEST_ASSIGN_OR_RETURN(json image, ImagePart(block, at));
      parts.parts.push_back(std::move(image));
      parts.images = true;
    } else if (type == "tool_use" && role == "assistant") {
      ZEST_ASSIGN_OR_RETURN(std::string id, StringMember(block, "id", at, true));
      ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(block, "name", at, true));
      const json input = block.value("input", json::object());
      tool_calls.push_back({{"id", id},
                            {"type", "function"},
                            {"function", {{"name", name}, {"arguments", JsonText(input)}}}});
    } else if (type == "tool_result" && role == "user") {
      ZEST_ASSIGN_OR_RETURN(std::string id, StringMember(block, "tool_use_id", at, true));
      ZEST_ASSIGN_OR_RETURN(json result, ToolResultContent(block, at));
      // A tool message answers the assistant turn just before.
      out.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", std::move(result)}});
    } else if (type == "thinking" && role == "assistant") {
      ZEST_ASSIGN_OR_RETURN(std::string text, StringMember(block, "thinking", at));
      thinking += text;
    } else if (type == "redacted_thinking" && role == "assistant") {
      continue;  // encrypted by Anthropic: nothing a local model can read
    } else {
      return InvalidArgument(at + ".type: '" + type + "' blocks are not supported in " + role +
                             " messages");
    }
  }
  if (role == "user") {
    if (!parts.parts.empty()) out.push_back({{"role", "user"}, {"content", parts.Content()}});
    return Status::Ok();
  }
  json assistant = {{"role", "assistant"}, {"content", parts.Content()}};
  if (!thinking.empty()) assistant["reasoning_content"] = thinking;
  if (!tool_calls.empty()) assistant["tool_calls"] = std::move(tool_calls);
  out.push_back(std::move(assistant));
  return Status::Ok();
}

// `system`: a string or text blocks.
Result<std::string> SystemText(const json& system) {
  if (system.is_null() || system.is_string())
    return system.is_null() ? "" : system.get<std::string>();
  if (!system.is_array()) return InvalidArgument("system: a string or text blocks");
  std::string text;
  for (std::size_t i = 0; i < system.size(); ++i) {
    const std::string at = "system[" + std::to_string(i) + "]";
    if (!system[i].is_object() || system[i].value("type", json()) != "text") {
      return InvalidArgument(at + ".type: system blocks are text");
    }
    ZEST_ASSIGN_OR_RETURN(std::string piece, StringMember(system[i], "text", at, true));
    if (!text.empty()) text += "\n";
    text += piece;
  }
  return text;
}

Result<json> Tools(const json& tools) {
  if (!tools.is_array()) return InvalidArgument("tools: Input should be a list");
  json out = json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const json& tool = tools[i];
    const std::string at = "tools[" + std::to_string(i) + "]";
    if (!tool.is_object()) return InvalidArgument(at + ": Input should be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(tool, "type", at));
    if (!type.empty() && type != "custom") {
      return InvalidArgument(
          at + ".type: '" + type +
          "' is one of Anthropic's server tools, which a local model cannot run");
    }
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(tool, "name", at, true));
    const json schema = tool.value("input_schema", json());
    if (!schema.is_object()) return InvalidArgument(at + ".input_schema: Field required");
    json function = {{"name", name}, {"parameters", schema}};
    ZEST_ASSIGN_OR_RETURN(std::string description, StringMember(tool, "description", at));
    if (!description.empty()) function["description"] = description;
    out.push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

Status ApplyToolChoice(const json& choice, json& body) {
  if (choice.is_null()) return Status::Ok();
  if (!choice.is_object()) return InvalidArgument("tool_choice: Input should be an object");
  ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(choice, "type", "tool_choice", true));
  if (type == "auto") {
    body["tool_choice"] = "auto";
  } else if (type == "any") {
    body["tool_choice"] = "required";
  } else if (type == "none") {
    body["tool_choice"] = "none";
  } else if (type == "tool") {
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(choice, "name", "tool_choice", true));
    body["tool_choice"] = {{"type", "function"}, {"function", {{"name", name}}}};
  } else {
    return InvalidArgument("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
  }
  if (choice.value("disable_parallel_tool_use", json(false)) == true) {
    body["parallel_tool_calls"] = false;
  }
  return Status::Ok();
}

// thinking {"type": "enabled", "budget_tokens"}, checked as Anthropic does
// (at least 1024, below max_tokens), becomes llama-server's per-request
// reasoning budget: past it the engine closes the reasoning and answers.
// `max_tokens` is null when counting tokens.
Status ApplyThinkingBudget(const json& thinking, const json& max_tokens, json& body) {
  const json budget = thinking.value("budget_tokens", json());
  if (!budget.is_number_integer()) {
    return InvalidArgument("thinking.enabled.budget_tokens: Field required (an integer)");
  }
  if (budget.get<int64_t>() < 1024) {
    return InvalidArgument(
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
  }
  if (max_tokens.is_number_integer() && budget.get<int64_t>() >= max_tokens.get<int64_t>()) {
    return InvalidArgument("max_tokens must be greater than thinking.budget_tokens");
  }
  body["reasoning_budget_tokens"] = budget;
  return Status::Ok();
}

// Sampling: max_tokens, stop_sequences, temperature, top_p, top_k, thinking.
Status ApplySampling(const json& request, bool count_only, json& body) {
  const json max_tokens = request.value("max_tokens", json());
  if (!count_only) {
    if (!max_tokens.is_number_integer() || max_tokens.get<int64_t>() < 1) {
      return InvalidArgument("max_tokens: Field required (an integer of at least 1)");
    }
    body["max_tokens"] = max_tokens;
  }
  if (auto stop = request.find("stop_sequences"); stop != request.end() && !stop->is_null()) {
    if (!stop->is_array() ||
        !std::all_of(stop->begin(), stop->end(), [](const json& s) { return s.is_string(); })) {
      return InvalidArgument("stop_sequences: Input should be a list of strings");
    }
    if (!stop->empty()) body["stop"] = *stop;
  }
  for (const char* key : {"temperature", "top_p", "top_k"}) {
    auto it = request.find(key);
    if (it == request.end() || it->is_null()) continue;
    if (!it->is_number()) return InvalidArgument(std::string(key) + ": Input should be a number");
    body[key] = *it;
  }
  if (auto thinking = request.find("thinking"); thinking != request.end() && !thinking->is_null()) {
    const json type = thinking->is_object() ? thinking->value("type", json()) : json();
    if (type != "enabled" && type != "disabled" && type != "adaptive") {
      return InvalidArgument("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'");
    }
    body["chat_template_kwargs"] = {{"enable_thinking", type != "disabled"}};
    if (type == "enabled") ZEST_RETURN_IF_ERROR(ApplyThinkingBudget(*thinking, max_tokens, body));
  }
  return Status::Ok();
}

}  // namespace

Result<MessagesJob> ParseMessagesRequest(const json& request, bool count_only) {
  MessagesJob job;
  ZEST_ASSIGN_OR_RETURN(job.model, StringMember(request, "model", "", true));
  if (job.model.empty()) return InvalidArgument("model: Field required");
  if (auto stream = request.find("stream"); stream != request.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return InvalidArgument("stream: Input should be a valid boolean");
    job.stream = stream->get<bool>() && !count_only;
  }
  job.body = json::object();
  ZEST_RETURN_IF_ERROR(ApplySampling(request, count_only, job.body));
  json messages = json::array();
  ZEST_ASSIGN_OR_RETURN(std::string system, SystemText(request.value("system", json())));
  if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
  const json in = request.value("messages", json());
  if (!in.is_array()) return InvalidArgument("messages: Field required (a list)");
  for (std::size_t i = 0; i < in.size(); ++i) {
    ZEST_RETURN_IF_ERROR(AddMessage(in[i], "messages[" + std::to_string(i) + "]", messages));
  }
  job.body["messages"] = std::move(messages);
  if (auto tools = request.find("tools"); tools != request.end() && !tools->is_null()) {
    ZEST_ASSIGN_OR_RETURN(json functions, Tools(*tools));
    if (!functions.empty()) job.body["tools"] = std::move(functions);
  }
  ZEST_RETURN_IF_ERROR(ApplyToolChoice(request.value("tool_choice", json()), job.body));
  if (auto p = request.find("priority"); p != request.end() && p->is_string()) {
    job.priority = p->get<std::string>();
  }
  if (job.stream) job.body["stream_options"] = {{"include_usage", true}};
  return job;
}

}  // namespace zest::api::anthropic
