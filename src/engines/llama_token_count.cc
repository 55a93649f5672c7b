#include "engines/llama_token_count.h"

#include <nlohmann/json.hpp>

#include "engines/openai_request_json.h"

namespace zest::engines {
namespace {

using nlohmann::json;

// A tool call's arguments as a tool_use block's input: the JSON they are,
// or an empty object when they are not an object (the route dumps the
// input back into OpenAI's arguments text).
json ToolInput(const std::string& arguments) {
  json input = json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  return input.is_object() ? input : json::object();
}

// A message's parts as Anthropic's blocks: text stays, an image becomes
// an image block with a url source (the route turns it back into OpenAI's
// image_url, data: URLs included), and its tool calls become tool_use
// blocks. Parts zest does not model are left out: the route would drop
// them.
json Blocks(const Message& message) {
  json blocks = json::array();
  for (const ContentPart& part : message.parts) {
    if (part.type == ContentPart::Type::kText) {
      blocks.push_back({{"type", "text"}, {"text", part.text}});
    } else if (part.type == ContentPart::Type::kImage) {
      blocks.push_back({{"type", "image"}, {"source", {{"type", "url"}, {"url", part.url}}}});
    }
  }
  for (const ToolCall& call : message.tool_calls) {
    blocks.push_back({{"type", "tool_use"},
                      {"id", call.id},
                      {"name", call.name},
                      {"input", ToolInput(call.arguments)}});
  }
  return blocks;
}

// A tool result's text: a chat template's tool message is text.
std::string PartsText(const Message& message) {
  std::string text;
  for (const ContentPart& part : message.parts) {
    if (part.type == ContentPart::Type::kText) text += part.text;
  }
  return text;
}

json MessageJson(const Message& message, json openai) {
  // The route drops an assistant turn with no content member; null it
  // passes on, and a chat template reads the two alike.
  if (message.content == Message::Content::kAbsent) openai["content"] = nullptr;
  if (message.plain()) return openai;
  if (message.role == "tool") {
    openai["content"] = PartsText(message);
    return openai;
  }
  return {{"role", message.role}, {"content", Blocks(message)}};
}

json ToolsJson(const std::vector<Tool>& tools) {
  json out = json::array();
  for (const Tool& tool : tools) {
    json one = {{"name", tool.name}};
    if (!tool.description.empty()) one["description"] = tool.description;
    one["input_schema"] = tool.parameters.is_null() ? json::object() : tool.parameters;
    out.push_back(std::move(one));
  }
  return out;
}

json ToolChoiceJson(const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::kAuto:
      return {{"type", "auto"}};
    case ToolChoice::Mode::kNone:
      return {{"type", "none"}};
    case ToolChoice::Mode::kRequired:
      return {{"type", "any"}};
    case ToolChoice::Mode::kFunction:
      break;
  }
  return {{"type", "tool"}, {"name", choice.function}};
}

}  // namespace

std::string TokenCountBody(const ChatRequest& request, const std::string& model) {
  const json openai = OpenAiMessagesJson(request.messages);
  json messages = json::array();
  for (std::size_t i = 0; i < request.messages.size(); ++i) {
    messages.push_back(MessageJson(request.messages[i], openai[i]));
  }
  json body = {{"model", model}, {"messages", std::move(messages)}};
  if (!request.tools.empty()) body["tools"] = ToolsJson(request.tools);
  if (request.tool_choice) body["tool_choice"] = ToolChoiceJson(*request.tool_choice);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<uint64_t> ReadTokenCountAnswer(int status, std::string_view body) {
  const json answer = json::parse(body, nullptr, /*allow_exceptions=*/false);
  const json tokens = answer.is_object() ? answer.value("input_tokens", json()) : json();
  if (status != 200 || !tokens.is_number_unsigned()) {
    return EngineFailed("llama-server did not count the tokens (" + std::to_string(status) +
                        "): " + std::string(body.substr(0, 300)));
  }
  return tokens.get<uint64_t>();
}

}  // namespace zest::engines
