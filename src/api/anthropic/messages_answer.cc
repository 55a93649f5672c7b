#include "api/anthropic/messages_answer.h"

#include <algorithm>

#include "api/request/errors.h"
#include "relay/json_text.h"

namespace zest::api::anthropic {
namespace {

using nlohmann::json;

// One server-sent event: `event: TYPE` and its JSON data.
std::string Event(const json& data) {
  return "event: " + data["type"].get<std::string>() + "\ndata: " + relay::JsonText(data) + "\n\n";
}

// A tool call's arguments as a tool_use block's `input`: an object.
json Input(const std::string& arguments) {
  if (arguments.empty()) return json::object();
  json input = json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  return input.is_object() ? input : json::object();
}

uint64_t Count(const json& object, const char* key) {
  const json value = object.is_object() ? object.value(key, json()) : json();
  return value.is_number_unsigned() ? value.get<uint64_t>() : 0;
}

// The engine's usage in Anthropic's shape. Anthropic counts a prompt in
// parts that add up to the whole: input_tokens are only those not read from
// the cache (the engine's prompt_tokens count them all). zest writes no
// cache on request, so cache_creation_input_tokens is 0.
json UsageOf(const json& usage) {
  const json details = usage.is_object() ? usage.value("prompt_tokens_details", json()) : json();
  const uint64_t prompt = Count(usage, "prompt_tokens");
  const uint64_t cached = std::min(Count(details, "cached_tokens"), prompt);
  return {{"input_tokens", prompt - cached},
          {"output_tokens", Count(usage, "completion_tokens")},
          {"cache_creation_input_tokens", 0},
          {"cache_read_input_tokens", cached}};
}

// A tool_use block's id as Anthropic writes them ("toolu_..."): the
// engine's call id, or the message's and the call's place when it has none.
std::string ToolUseId(const std::string& engine_id, const std::string& message_id,
                      std::size_t index) {
  if (engine_id.empty()) return "toolu_" + message_id + "_" + std::to_string(index);
  return engine_id.starts_with("toolu_") ? engine_id : "toolu_" + engine_id;
}

}  // namespace

std::string StopReason(const json& finish_reason) {
  if (finish_reason == "length") return "max_tokens";
  if (finish_reason == "tool_calls") return "tool_use";
  return "end_turn";
}

const char* ErrorType(int http_status) {
  switch (http_status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return http_status < 500 ? "invalid_request_error" : "api_error";
  }
}

std::string ErrorBody(int http_status, const std::string& message) {
  return relay::JsonText(
      {{"type", "error"}, {"error", {{"type", ErrorType(http_status)}, {"message", message}}}});
}

MessagesAnswer::MessagesAnswer(std::string model, std::string id)
    : model_(std::move(model)), id_(std::move(id)) {}

json MessagesAnswer::Usage() const { return UsageOf(usage_); }

std::string MessagesAnswer::Start() {
  if (started_) return "";
  started_ = true;
  json message = {{"id", id_},
                  {"type", "message"},
                  {"role", "assistant"},
                  {"model", model_},
                  {"content", json::array()},
                  {"stop_reason", nullptr},
                  {"stop_sequence", nullptr},
                  {"usage", UsageOf(json())}};
  return Event({{"type", "message_start"}, {"message", std::move(message)}}) +
         Event({{"type", "ping"}});
}

std::string MessagesAnswer::Close() {
  if (open_ == Block::kNone) return "";
  std::string out;
  if (open_ == Block::kThinking) {  // the SDK expects a signature before the stop
    out = Event({{"type", "content_block_delta"},
                 {"index", index_},
                 {"delta", {{"type", "signature_delta"}, {"signature", ""}}}});
  }
  open_ = Block::kNone;
  return out + Event({{"type", "content_block_stop"}, {"index", index_}});
}

std::string MessagesAnswer::Open(Block kind, json start) {
  std::string out = Close();
  open_ = kind;
  ++index_;
  return out + Event({{"type", "content_block_start"},
                      {"index", index_},
                      {"content_block", std::move(start)}});
}

std::string MessagesAnswer::Chunk(const json& chunk) {
  std::string out = Start();
  const relay::ChatChunk piece = relay::ReadChatChunk(chunk);
  if (!piece.usage.is_null()) usage_ = piece.usage;
  auto text_delta = [&](const std::string& text, Block kind) {
    if (text.empty()) return;
    const bool thinking = kind == Block::kThinking;
    if (open_ != kind) {
      out += Open(kind, thinking ? json{{"type", "thinking"}, {"thinking", ""}}
                                 : json{{"type", "text"}, {"text", ""}});
    }
    out += Event({{"type", "content_block_delta"},
                  {"index", index_},
                  {"delta",
                   {{"type", thinking ? "thinking_delta" : "text_delta"},
                    {thinking ? "thinking" : "text", text}}}});
  };
  text_delta(piece.reasoning, Block::kThinking);
  text_delta(piece.content, Block::kText);
  for (const relay::ChatChunk::ToolCall& call : piece.tool_calls) {
    if (open_ != Block::kToolUse || call.index != tool_index_) {
      tool_index_ = call.index;
      out += Open(Block::kToolUse, {{"type", "tool_use"},
                                    {"id", ToolUseId(call.id, id_, call.index)},
                                    {"name", call.name},
                                    {"input", json::object()}});
    }
    if (!call.arguments.empty()) {
      out += Event({{"type", "content_block_delta"},
                    {"index", index_},
                    {"delta", {{"type", "input_json_delta"}, {"partial_json", call.arguments}}}});
    }
  }
  if (piece.finish_reason) stop_reason_ = StopReason(*piece.finish_reason);
  return out;
}

std::string MessagesAnswer::End() {
  std::string out = Start();  // then the open block's close (in that order)
  out += Close();
  out += Event({{"type", "message_delta"},
                {"delta", {{"stop_reason", stop_reason_}, {"stop_sequence", nullptr}}},
                {"usage", Usage()}});
  return out + Event({{"type", "message_stop"}});
}

std::string MessagesAnswer::StreamError(const Status& status) {
  const int http = api::MapStatus(status).http_status;
  return "event: error\ndata: " + ErrorBody(http, status.message()) + "\n\n";
}

Result<std::string> MessagesAnswer::Whole(const json& answer) {
  const json choices = answer.value("choices", json::array());
  if (!choices.is_array() || choices.empty() || !choices[0].is_object()) {
    return EngineFailed("the engine's answer has no choices");
  }
  const json& choice = choices[0];
  const json message = choice.value("message", json::object());
  json content = json::array();
  if (message.value("reasoning_content", json()).is_string()) {
    content.push_back(
        {{"type", "thinking"}, {"thinking", message["reasoning_content"]}, {"signature", ""}});
  }
  if (const json text = message.value("content", json());
      text.is_string() && !text.get_ref<const std::string&>().empty()) {
    content.push_back({{"type", "text"}, {"text", text}});
  }
  const json calls = message.value("tool_calls", json::array());
  for (std::size_t i = 0; calls.is_array() && i < calls.size(); ++i) {
    const json fn = calls[i].value("function", json::object());
    const json id = calls[i].value("id", json());
    content.push_back({{"type", "tool_use"},
                       {"id", ToolUseId(id.is_string() ? id.get<std::string>() : "", id_, i)},
                       {"name", fn.value("name", "")},
                       {"input", Input(fn.value("arguments", ""))}});
  }
  json out = {{"id", id_},
              {"type", "message"},
              {"role", "assistant"},
              {"model", model_},
              {"content", std::move(content)},
              {"stop_reason", StopReason(choice.value("finish_reason", json()))},
              {"stop_sequence", nullptr},
              {"usage", UsageOf(answer.value("usage", json()))}};
  return relay::JsonText(out);
}

}  // namespace zest::api::anthropic
