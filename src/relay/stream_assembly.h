// A non-streamed answer built from the engine's stream. zest asks
// llama-server for a stream even when the client did not
// (EngineAdapter::AsksAsStream, engines/llama_server_adapter.h: a streamed
// task stops at its next token once its client leaves, a whole one only at
// the engine's next check of its connection, about a second), unless the
// answer is short (at most 16 tokens: engine_relay.cc, kWholeAnswerTokens).
//
// StreamAssembler folds the chunks (OpenAI's chat.completion.chunk or
// text_completion, as llama-server sends them) into the answer the request
// would have had without `stream`: per choice, by index, the content,
// reasoning and text concatenated, tool calls joined by their index, the
// logprobs' content lists joined, the last finish_reason; usage and
// llama-server's timings from the closing chunks. Pure.
//
// One difference is llama-server's own, and streamed clients have it too:
// its stream holds back bytes that may begin a multi-byte character and,
// when they never become valid UTF-8, ends without them and what followed
// them, where its whole answer has U+FFFD for them. Valid text never does
// this; the synthetic test model's random bytes do (24 of 450 answers).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "relay/engine_event.h"

namespace zest::relay {

class StreamAssembler {
 public:
  // For a stream of chat completion chunks (`chat`) or text completion ones.
  explicit StreamAssembler(bool chat);

  // One event's data; "[DONE]" and what is not a JSON object are ignored.
  void Add(std::string_view data);
  // The same on the relay's event (engine_event.h), its JSON shared.
  void Add(EngineEvent& event);

  // The engine reported an error mid-stream ({"error": {...}}): its event,
  // and the HTTP status its "code" names (500 when it names none).
  const std::optional<std::string>& error() const { return error_; }
  int error_status() const { return error_status_; }

  // No chunk came: nothing to answer with.
  bool empty() const { return chunks_ == 0; }

  // The whole answer, its "model" set to `model`.
  std::string Finish(const std::string& model) const;

 private:
  // NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
  struct ToolCall {
    nlohmann::json id, type;  // null until a delta names them
    std::string name, arguments;
  };
  // NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
  struct Choice {
    std::string content, reasoning, text;
    std::map<int, ToolCall> tool_calls;
    bool has_logprobs_key = false;
    nlohmann::json logprobs;  // {"content": [...]} once a chunk had some
    nlohmann::json finish_reason;
  };
  void AddChoice(const nlohmann::json& chunk_choice);

  nlohmann::json head_ = nlohmann::json::object();  // id, created, object, system_fingerprint
  std::map<int, Choice> choices_;
  nlohmann::json usage_, timings_;
  bool chat_ = false;
  int chunks_ = 0;
  std::optional<std::string> error_;
  int error_status_ = 500;
};

}  // namespace zest::relay
