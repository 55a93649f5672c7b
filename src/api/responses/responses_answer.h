// The engine's OpenAI chat answer as OpenAI's Responses answer: a
// `response` object whole, or its streamed events: response.created,
// response.in_progress, then per output item response.output_item.added,
// its content (response.content_part.added, response.output_text.delta /
// .done, response.content_part.done for a message; response.reasoning_text
// .delta / .done for reasoning; response.function_call_arguments.delta /
// .done for a function call, response.custom_tool_call_input.delta / .done
// for a custom tool's call, its input whole), response.output_item.done,
// and last
// response.completed (response.incomplete when the token limit cut it
// off), each with its sequence_number.
//
// Output items in the order the engine produces them: reasoning (its text
// as reasoning_text content), the message (output_text), each function
// call (custom_tool_call for a custom tool; `namespace` for a tool of one).
// usage: input_tokens (with cached_tokens), output_tokens,
// total_tokens. Once the answer is whole, `on_done` gets the response
// object (the store keeps it); not on an error. Pure; one per request.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "api/responses/client_tools.h"
#include "relay/answer_translator.h"

namespace zest::api::responses {

class ResponsesAnswer : public relay::AnswerTranslator {
 public:
  using Done = std::function<void(const nlohmann::json& response)>;
  // `base`: the response object as it starts (id, created_at, model and
  // the request's echoed fields); its status, output and usage are filled
  // in. `tools`: the request's, so each call comes back under the name,
  // namespace and kind of item the client declared.
  // `encrypted_reasoning`: reasoning items carry their text in
  // encrypted_content too (ReasoningBlob), as `include` asked.
  ResponsesAnswer(nlohmann::json base, Done on_done, ClientTools tools = {},
                  bool encrypted_reasoning = false);

  std::string_view stream_content_type() const override { return "text/event-stream"; }
  std::string Chunk(const nlohmann::json& chunk) override;
  std::string End() override;
  std::string StreamError(const Status& status) override;
  Result<std::string> Whole(const nlohmann::json& answer) override;

 private:
  enum class Item { kNone, kReasoning, kMessage, kFunctionCall, kCustomCall };
  std::string Event(nlohmann::json data);
  std::string Start();
  std::string Open(Item kind, nlohmann::json item);
  std::string Close();
  // The response with `status`, the finished output and usage.
  nlohmann::json Finished() const;

  nlohmann::json response_;
  Done on_done_;
  const ClientTools tools_;
  const bool encrypted_reasoning_;
  int sequence_ = 0;
  bool started_ = false;
  Item open_ = Item::kNone;
  nlohmann::json item_;  // the open item as it grows
  std::string text_;     // its text or arguments so far
  int tool_index_ = -1;  // the engine's index of the open function call
  nlohmann::json output_ = nlohmann::json::array();
  nlohmann::json usage_;
  bool incomplete_ = false;
};

// usage in the Responses shape from the engine's OpenAI usage.
nlohmann::json ResponsesUsage(const nlohmann::json& usage);

}  // namespace zest::api::responses
