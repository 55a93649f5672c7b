// ChatRequest: the one form a generation request takes inside zest,
// whichever API it came in by (OpenAI's chat and text completions and its
// embeddings, Anthropic's Messages, OpenAI's Responses, Ollama's chat and
// generate). Each API's parser builds it and checks it once; presets, the
// tool choice and zest's defaults change it (api/chat_route.h); the relay
// hands it to the engine's adapter, which writes it in its engine's shape
// once (EngineAdapter::ChatCall). Nothing reads a request's JSON text twice.
//
// Typed where zest acts on it: messages (text and image parts, tool calls),
// tools and the tool choice, sampling, the answer's limit, streaming,
// reasoning and the response format. What a client sends that zest does
// not model (OpenAI's logit_bias or logprobs, llama-server's own fields) is
// kept as it came in `extra`, and in each message's and part's, and reaches
// the engine unchanged: zest passes on what it does not understand rather
// than dropping it. JSON appears here only where the content is JSON by
// nature: tool and response schemas, and those passed-on fields.
//
// A plain value; the relay shares one, read-only, between its tries.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/duration.h"
#include "engines/capability.h"

namespace zest::engines {

// A piece of a message's content.
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ContentPart {
  enum class Type {
    kText,
    kImage,  // an image by URL: https, or a data: URL with the bytes
    kOther,  // a part zest does not model (OpenAI's input_audio, file...): `extra` is all of it
  };
  Type type = Type::kText;
  std::string text{};      // kText
  std::string url{};       // kImage
  std::string detail{};    // kImage: OpenAI's "low", "high", "auto"; "" = not given
  nlohmann::json extra{};  // the part's other members (null: none); kOther: the whole part
};

// One call of a tool, in an assistant's turn.
struct ToolCall {
  std::string id{};
  std::string name{};
  std::string arguments{};  // JSON text, as OpenAI carries it
};

// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct Message {
  enum class Content {
    kAbsent,  // no content member (OpenAI: an assistant turn of tool calls)
    kNull,    // "content": null
    kText,
    kParts,
  };
  std::string role;  // "system", "user", "assistant", "tool", or another the client sent
  Content content = Content::kText;
  std::string text;                // kText
  std::vector<ContentPart> parts;  // kParts
  std::string reasoning;           // the assistant's reasoning (reasoning_content); "" = none
  std::vector<ToolCall> tool_calls;
  std::string tool_call_id;  // a tool result: the call it answers; "" = none
  nlohmann::json extra;      // the message's other members (null: none)

  static Message Text(std::string role, std::string text) {
    Message m;
    m.role = std::move(role);
    m.text = std::move(text);
    return m;
  }
  // Whether it has content a model reads as text only (none or a string).
  bool plain() const { return content != Content::kParts; }
};

// A function the model may call.
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct Tool {
  std::string name{};
  std::string description{};    // "" = none
  nlohmann::json parameters{};  // its arguments' JSON schema; null = not given
  std::optional<bool> strict{};
  nlohmann::json extra{};  // the function's other members (null: none)
};

struct ToolChoice {
  enum class Mode { kAuto, kNone, kRequired, kFunction };
  Mode mode = Mode::kAuto;
  std::string function{};  // kFunction: its name
};

// How the next token is chosen; unset fields are the engine's defaults.
// Names are llama-server's, which OpenAI's are a subset of.
struct Sampling {
  std::optional<double> temperature, top_p, min_p, typical_p, repeat_penalty, presence_penalty,
      frequency_penalty, mirostat_tau, mirostat_eta;
  std::optional<int64_t> top_k, seed, repeat_last_n, mirostat, n_keep;
  std::optional<std::vector<std::string>> stop;
};

// Sampling's fields by llama-server's name, for the parsers and the writer.
struct RealSampler {
  const char* name;
  std::optional<double> Sampling::*field;
};
struct IntegerSampler {
  const char* name;
  std::optional<int64_t> Sampling::*field;
};
extern const std::array<RealSampler, 9> kRealSamplers;
extern const std::array<IntegerSampler, 5> kIntegerSamplers;

// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ChatRequest {
  // What it asks: kChat (messages), kCompletions (a prompt) or
  // kEmbeddings (an input).
  Capability kind = Capability::kChat;

  // Not the engine's business: how zest handles it.
  std::string model;                   // as the client named it
  std::optional<Duration> keep_alive;  // the request's own (Ollama's field, on every API)
  std::string priority;                // the body's `priority`, or ""

  std::vector<Message> messages;  // kChat
  nlohmann::json prompt;          // kCompletions: a string, or a list (OpenAI's shapes)
  nlohmann::json input;           // kEmbeddings: a string, or a list

  std::vector<Tool> tools;
  std::optional<ToolChoice> tool_choice;
  std::optional<bool> parallel_tool_calls;

  Sampling sampling;
  std::optional<int64_t> max_tokens;  // the answer's length, in tokens; unset = none given
  bool stream = false;
  bool include_usage = false;  // a stream's closing chunk carries usage

  // OpenAI's response_format ({"type": "json_object"} or a json_schema);
  // null = free text.
  nlohmann::json response_format;
  std::optional<bool> thinking;            // the chat template's enable_thinking
  std::string reasoning_effort;            // "low", "medium", "high"...; "" = not given
  std::optional<int64_t> thinking_budget;  // reasoning tokens before the answer must start

  nlohmann::json extra = nlohmann::json::object();  // the request's other members
};

// How the relay asks an engine for a ChatRequest (EngineAdapter::ChatCall).
struct ChatCallOptions {
  std::string model{};     // the name the engine knows the model by
  bool as_stream = false;  // a whole answer asked as a stream, with usage (AsksAsStream)
  // On this slot (id_slot): the one a split prefill filled
  // (relay/prefill_handoff.h), or the one zest chose for the request's API
  // key (scheduler/slot_owners.h).
  std::optional<int> slot{};
  // Whether the engine may reuse what the slot holds (cache_prompt); unset:
  // yes with `slot`, else the client's say. Set, the client's own id_slot
  // and cache_prompt never reach the engine: zest places the request.
  std::optional<bool> cache_prompt{};
  bool prompt_only = false;  // the prompt alone, for a prefill: one token, whole
};

// Whether `request` asks for per-token log probabilities (OpenAI's
// `logprobs`, `top_logprobs`; llama-server's `n_probs`), which zest does
// not model: they are read from `extra`.
bool WantsLogprobs(const ChatRequest& request);

// The answers to generate for each prompt: llama-server's `n_cmpl`, else
// OpenAI's `n` (llama-server reads them in that order), from `extra`; 1
// when neither is given, 0 when the one given is not an integer.
int64_t Choices(const ChatRequest& request);
// The field Choices read: "n_cmpl" or "n".
std::string ChoicesField(const ChatRequest& request);

// How many sequences the engine runs for `request` at once, each in a slot
// of its own: Choices (at least 1) for each of a text completion's prompts
// (a list of them: strings or token lists) or for the one conversation.
int64_t Sequences(const ChatRequest& request);

}  // namespace zest::engines
