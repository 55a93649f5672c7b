// Ollama's chat and generate requests read into the typed request
// (engines/chat_request.h): a chat, or for `raw` a text completion; and the
// engine's answer back in
// Ollama's shape (an AnswerTranslator: NDJSON lines as it streams, one
// object whole). Pure.
//
// What maps (Ollama's API docs, docs/api.md of ollama/ollama):
//   - /api/chat: messages (role, content, images → image parts of the
//     message, tool_calls with object arguments, tool results, thinking),
//     tools, format ("json" or a JSON schema → response_format), think
//     (true/false or "low"/"medium"/"high" → the chat template's
//     enable_thinking and reasoning_effort), options (request/sampling_fields.h),
//     keep_alive, stream (Ollama's default: true).
//   - /api/generate: prompt with system and images as one user turn of the
//     model's chat template; `raw` sends the prompt as it is, to the text
//     completions route; `suffix` (fill in the middle, for code editors)
//     frames prompt and suffix with the model's FIM tokens, as a raw
//     completion (InsertPrompt); the engine's adapter writes `format` there
//     as its text completions take it (engines/openai_request_json.h).
//   - options: num_predict → the answer's limit (negative: zest's default
//     limit), temperature, top_k, top_p, min_p, typical_p, seed, stop,
//     repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty,
//     mirostat (+ _tau, _eta), num_keep. What Ollama applies when it loads
//     a model (num_ctx, num_gpu, num_thread, num_batch, use_mmap, ...) is
//     zest's per-model load options (`zest load`, config.toml), so it is
//     accepted and not applied here, as Ollama ignores options it does not
//     know.
//   - Refused with a clear 400: `template` (zest applies the model's own
//     chat template; `raw` takes a formatted prompt), a non-empty `context`
//     (deprecated in Ollama: send the conversation to /api/chat), `suffix`
//     on a model without FIM tokens.
//
// The answer: each line {model, created_at, message|response, done:false};
// tool calls whole in one line once their arguments are complete (as Ollama
// sends them); the last line done:true with done_reason and real counts and
// durations: prompt_eval_count/eval_count from the engine's usage (the
// prompt tokens it evaluated: those from its prompt cache are not counted),
// prompt_eval_duration/eval_duration from llama-server's timings,
// total_duration measured by zest, load_duration the time before the engine
// began on the prompt (queue, model load).
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/duration.h"
#include "core/result.h"
#include "engines/chat_request.h"
#include "models/gguf_reader.h"
#include "relay/answer_translator.h"

namespace zest::api::ollama {

// An Ollama chat or generate request, read into the typed request.
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct OllamaRequest {
  // model: as the client sent it (`name:tag`); kind kChat, or
  // kCompletions for a raw prompt or fill in the middle.
  engines::ChatRequest request;
  bool generate = false;  // /api/generate: `response` instead of `message`
  // /api/generate with a `suffix`: fill in the middle, between `prompt`
  // and `suffix` (the prompt is written by InsertPrompt, from the model's
  // tokens).
  struct Insert {
    std::string prompt;
    std::string suffix;
  };
  std::optional<Insert> insert;
};

// kInvalidArgument naming the bad field.
Result<OllamaRequest> ParseChatRequest(const nlohmann::json& body);
Result<OllamaRequest> ParseGenerateRequest(const nlohmann::json& body);

// Ollama's messages as typed ones, as chat reads them (for presets:
// ollama_create.h).
Result<std::vector<engines::Message>> ReadMessages(const nlohmann::json& messages);

// For a request with `insert`: the raw completion prompt in the model's
// fill-in-the-middle format (prefix token, prompt, suffix token, suffix,
// middle token). kInvalidArgument when the model has no such tokens ("does
// not support insert", as Ollama says).
Status InsertPrompt(const std::string& model_name, const models::ModelInfo& info,
                    OllamaRequest& job);

// The engine's OpenAI answer in Ollama's shape, for one request.
class OllamaAnswer : public relay::AnswerTranslator {
 public:
  using Clock = std::chrono::steady_clock;
  // `start`: when the request came (total_duration counts from it).
  OllamaAnswer(const OllamaRequest& job, Clock::time_point start);

  std::string_view stream_content_type() const override { return "application/x-ndjson"; }
  std::string Chunk(const nlohmann::json& chunk) override;
  std::string End() override;
  std::string StreamError(const Status& status) override;
  Result<std::string> Whole(const nlohmann::json& answer) override;

 private:
  struct ToolCall {
    std::string id, name, arguments;
  };
  // A line (or whole answer) with model, created_at and the text fields.
  nlohmann::json Line(const std::string& content, const std::string& thinking,
                      const nlohmann::json& tool_calls) const;
  nlohmann::json PendingToolCalls();
  // done, done_reason, counts and durations into `line`.
  void AddTotals(nlohmann::json& line, const nlohmann::json& usage,
                 const nlohmann::json& timings) const;

  const std::string model_;
  const bool generate_;
  const bool hide_thinking_;  // think: false
  const Clock::time_point start_;
  std::optional<Clock::time_point> first_chunk_;
  std::map<int, ToolCall> tool_calls_;  // streamed calls, by index, until complete
  std::string done_reason_ = "stop";
  nlohmann::json usage_, timings_;
};

}  // namespace zest::api::ollama
