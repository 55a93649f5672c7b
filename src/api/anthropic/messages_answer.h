// The engine's OpenAI chat answer as Anthropic's Messages answer: a
// `message` object whole, or streamed as Anthropic's event sequence
// (message_start, ping, content_block_start / content_block_delta
// (text_delta, thinking_delta, input_json_delta) / content_block_stop for
// each block, message_delta with stop_reason and usage, message_stop).
//
// Blocks come in the order the engine produces them: the reasoning as a
// `thinking` block (its signature is empty: nothing signs a local model's
// thoughts), the text as a `text` block, each tool call as a `tool_use`
// block whose input arrives as JSON fragments. finish_reason stop →
// end_turn, length → max_tokens, tool_calls → tool_use. Usage is the
// engine's, in Anthropic's parts: cache_read_input_tokens (the prompt
// tokens llama-server reused from its cache), input_tokens (the rest of the
// prompt, so the two add up to it) and output_tokens. Pure; one per request.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "relay/answer_translator.h"

namespace zest::api::anthropic {

class MessagesAnswer : public relay::AnswerTranslator {
 public:
  // `model`: the name as the client sent it; `id`: the message's id ("msg_...").
  MessagesAnswer(std::string model, std::string id);

  std::string_view stream_content_type() const override { return "text/event-stream"; }
  std::string Chunk(const nlohmann::json& chunk) override;
  std::string End() override;
  std::string StreamError(const Status& status) override;
  Result<std::string> Whole(const nlohmann::json& answer) override;

 private:
  enum class Block { kNone, kThinking, kText, kToolUse };
  // message_start and a ping, once, before anything else.
  std::string Start();
  // Closes the open block, if any, and opens `kind` (with `start`, the
  // content_block of its content_block_start).
  std::string Open(Block kind, nlohmann::json start);
  std::string Close();
  nlohmann::json Usage() const;

  const std::string model_;
  const std::string id_;
  bool started_ = false;
  Block open_ = Block::kNone;
  int index_ = -1;       // the open block's index
  int tool_index_ = -1;  // the engine's index of the open tool call
  std::string stop_reason_ = "end_turn";
  nlohmann::json usage_;
};

// Anthropic's stop_reason for OpenAI's finish_reason.
std::string StopReason(const nlohmann::json& finish_reason);

// Anthropic's error object type for an HTTP status ("invalid_request_error",
// "not_found_error", "rate_limit_error", "overloaded_error", "api_error", ...).
const char* ErrorType(int http_status);

// {"type":"error","error":{"type","message"}}.
std::string ErrorBody(int http_status, const std::string& message);

}  // namespace zest::api::anthropic
