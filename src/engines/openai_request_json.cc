#include "engines/openai_request_json.h"

namespace zest::engines {
namespace {

using nlohmann::json;

// `extra` (a passed-on object, or null) as the start of an object.
json Start(const json& extra) { return extra.is_object() ? extra : json::object(); }

json PartJson(const ContentPart& part) {
  if (part.type == ContentPart::Type::kOther) return part.extra;
  json out = Start(part.extra);
  if (part.type == ContentPart::Type::kText) {
    out["type"] = "text";
    out["text"] = part.text;
    return out;
  }
  json image = {{"url", part.url}};
  if (!part.detail.empty()) image["detail"] = part.detail;
  out["type"] = "image_url";
  out["image_url"] = std::move(image);
  return out;
}

json ToolCallsJson(const std::vector<ToolCall>& calls) {
  json out = json::array();
  for (const ToolCall& call : calls) {
    json one = {{"type", "function"},
                {"function", {{"name", call.name}, {"arguments", call.arguments}}}};
    if (!call.id.empty()) one["id"] = call.id;
    out.push_back(std::move(one));
  }
  return out;
}

json MessageJson(const Message& message) {
  json out = Start(message.extra);
  out["role"] = message.role;
  switch (message.content) {
    case Message::Content::kAbsent:
      break;
    case Message::Content::kNull:
      out["content"] = nullptr;
      break;
    case Message::Content::kText:
      out["content"] = message.text;
      break;
    case Message::Content::kParts: {
      json parts = json::array();
      for (const ContentPart& part : message.parts) parts.push_back(PartJson(part));
      out["content"] = std::move(parts);
      break;
    }
  }
  if (!message.reasoning.empty()) out["reasoning_content"] = message.reasoning;
  if (!message.tool_calls.empty()) out["tool_calls"] = ToolCallsJson(message.tool_calls);
  if (!message.tool_call_id.empty()) out["tool_call_id"] = message.tool_call_id;
  return out;
}

json ToolJson(const Tool& tool) {
  json function = Start(tool.extra);
  function["name"] = tool.name;
  if (!tool.description.empty()) function["description"] = tool.description;
  if (!tool.parameters.is_null()) function["parameters"] = tool.parameters;
  if (tool.strict) function["strict"] = *tool.strict;
  return {{"type", "function"}, {"function", std::move(function)}};
}

json ToolChoiceJson(const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::kAuto:
      return "auto";
    case ToolChoice::Mode::kNone:
      return "none";
    case ToolChoice::Mode::kRequired:
      return "required";
    case ToolChoice::Mode::kFunction:
      break;
  }
  return {{"type", "function"}, {"function", {{"name", choice.function}}}};
}

void AddSampling(const Sampling& sampling, json& out) {
  for (const RealSampler& s : kRealSamplers) {
    if (const std::optional<double>& v = sampling.*s.field) out[s.name] = *v;
  }
  for (const IntegerSampler& s : kIntegerSamplers) {
    if (const std::optional<int64_t>& v = sampling.*s.field) out[s.name] = *v;
  }
  if (sampling.stop) out["stop"] = *sampling.stop;
}

// llama-server's text completions ignore response_format (an OpenAI chat
// field): there the same constraint goes in its own `json_schema` field.
void AddResponseFormat(const ChatRequest& request, json& out) {
  const json& format = request.response_format;
  if (!format.is_object()) return;
  if (request.kind != Capability::kCompletions) {
    out["response_format"] = format;
    return;
  }
  const json type = format.value("type", json());
  if (type == "json_object") {
    out["json_schema"] = {{"type", "object"}};
  } else if (type == "json_schema") {
    const json spec = format.value("json_schema", json());
    if (spec.is_object() && spec.contains("schema")) out["json_schema"] = spec["schema"];
  }
}

void AddReasoning(const ChatRequest& request, json& out) {
  if (!request.reasoning_effort.empty()) out["reasoning_effort"] = request.reasoning_effort;
  if (request.thinking) {
    json& kwargs = out["chat_template_kwargs"];
    if (!kwargs.is_object()) kwargs = json::object();
    kwargs["enable_thinking"] = *request.thinking;
  }
  if (request.thinking_budget) out["reasoning_budget_tokens"] = *request.thinking_budget;
}

// stream, stream_options and the answer's limit, as the relay asks.
void AddOutput(const ChatRequest& request, const ChatCallOptions& options, json& out) {
  if (request.max_tokens) out["max_tokens"] = *request.max_tokens;
  out["stream"] = request.stream;
  if (request.include_usage) out["stream_options"]["include_usage"] = true;
  if (options.as_stream) {
    out["stream"] = true;
    out["stream_options"] = {{"include_usage", true}};
  }
  if (options.prompt_only) {
    out["max_tokens"] = 1;
    out["stream"] = false;
    out.erase("stream_options");
  }
  if (options.cache_prompt) {  // zest places it, not the client
    out.erase("id_slot");
    out.erase("slot_id");
  }
  if (options.slot) out["id_slot"] = *options.slot;
  if (options.slot || options.cache_prompt)
    out["cache_prompt"] = options.cache_prompt.value_or(true);
}

}  // namespace

json OpenAiMessagesJson(const std::vector<Message>& messages) {
  json out = json::array();
  for (const Message& message : messages) out.push_back(MessageJson(message));
  return out;
}

json OpenAiRequestJson(const ChatRequest& request, const ChatCallOptions& options) {
  json out = Start(request.extra);
  out["model"] = options.model;
  if (request.kind == Capability::kEmbeddings) {
    out["input"] = request.input;
    return out;
  }
  if (request.kind == Capability::kCompletions) {
    out["prompt"] = request.prompt;
  } else {
    out["messages"] = OpenAiMessagesJson(request.messages);
  }
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const Tool& tool : request.tools) tools.push_back(ToolJson(tool));
    out["tools"] = std::move(tools);
  }
  if (request.tool_choice) out["tool_choice"] = ToolChoiceJson(*request.tool_choice);
  if (request.parallel_tool_calls) out["parallel_tool_calls"] = *request.parallel_tool_calls;
  AddSampling(request.sampling, out);
  AddResponseFormat(request, out);
  AddReasoning(request, out);
  AddOutput(request, options, out);
  return out;
}

std::string OpenAiRequestText(const ChatRequest& request, const ChatCallOptions& options) {
  return OpenAiRequestJson(request, options).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace zest::engines
