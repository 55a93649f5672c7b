// AnswerTranslator: an engine's OpenAI chat answer made into another API's
// shape (Ollama's NDJSON, Anthropic's Messages events, ...) on its way
// through the relay (engine_relay.h).
//
// Every API zest speaks runs on the engine's /v1/chat/completions: the
// request is translated before it is queued, and the answer here, chunk by
// chunk as the engine streams it or whole. So admission, keep-alive, the
// resumption of a broken stream on a fresh engine (stream_resume.h), the
// assembly of non-streamed answers (stream_assembly.h) and the metrics
// (inference_metrics.h, which read OpenAI's events) are one code path for
// every API, and only the edges differ.
//
// The relay asks the engine for its usage in the closing chunk
// (stream_options.include_usage) of a translated stream, so that every API
// can report real token counts. Every relayed request has a translator:
// the OpenAI routes' passes the engine's answer through as it is. One
// translator serves one request; it is not thread-safe (the request's
// coroutine uses it), but for the pass-through, which keeps no state and
// is shared.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "relay/engine_event.h"

namespace zest::relay {

// An answer made into the API's shape from the engine's (AnswerTranslator::
// Answer; RelayRequest::from_engine).
struct ApiAnswer {
  int status = 200;
  std::string content_type;
  std::string body;
};

class AnswerTranslator {
 public:
  virtual ~AnswerTranslator() = default;

  // The Content-Type of a streamed answer.
  virtual std::string_view stream_content_type() const = 0;
  // Whether a streamed answer is an event stream, on which the relay may
  // keep a waiting client's connection warm with SSE comments.
  bool sse() const { return stream_content_type().starts_with("text/event-stream"); }

  // What the relay calls, on the engine's text. The defaults translate
  // through the parsed forms below; the OpenAI routes' pass-through
  // translator (api/request/openai_answer.h) overrides them to let the
  // engine's bytes through as they are, so the relay needs no case of its
  // own for an answer that is not translated.
  //
  // One event of the engine's stream (engine_event.h: read once, shared
  // with the relay's other readers; as the relay changed it): what to send
  // the client for it ("": nothing); nullopt: the event as it is. The
  // default: the API's Chunk of the event's JSON, End at "[DONE]",
  // StreamError for the engine's error event, nothing for what is not JSON.
  virtual std::optional<std::string> StreamEvent(EngineEvent& event);
  // The engine's stream ended, `whole` when after its "[DONE]", with
  // `pending` bytes after its last whole event: what the client gets
  // before its stream closes ("": nothing). The default: nothing after a
  // whole stream, else the API's StreamError.
  virtual std::string StreamEnd(bool whole, std::string_view pending);
  // The engine's error answer (`status`, `body`) to a client whose stream
  // a wait heartbeat already started: the event that ends it. The default:
  // StreamError of EngineErrorStatus.
  virtual std::string ErrorEvent(int status, std::string_view body);
  // The engine's whole answer (`status`, `body`, its `content_type`;
  // `rename`: the model name the client used where the body's differs,
  // else null): the client's answer, or the error it gets in the API's
  // error shape. The default: an error status as EngineErrorStatus, the
  // body parsed and made Whole.
  virtual Result<ApiAnswer> Answer(int status, std::string body, std::string_view content_type,
                                   const std::string* rename);

  // One chunk of the engine's stream (OpenAI's chat.completion.chunk,
  // parsed): what to send the client for it, possibly nothing.
  virtual std::string Chunk(const nlohmann::json& chunk) = 0;
  // The engine's stream ended whole ("[DONE]"): what closes the client's.
  virtual std::string End() = 0;
  // The answer broke off after the client had part of it: the API's error
  // event; the stream ends after it.
  virtual std::string StreamError(const Status& status) = 0;

  // The engine's whole answer (OpenAI's chat.completion, with usage and
  // llama-server's timings where it sent them): the API's answer body.
  virtual Result<std::string> Whole(const nlohmann::json& answer) = 0;
};

// One chunk of the engine's stream, read once for every translator: choice
// 0's delta (or, for a text completion, its text), the finish reason and
// the closing chunk's usage and timings; fields of odd types read as absent.
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ChatChunk {
  // A fragment of a streamed tool call: the first names it (id, name), the
  // next ones carry pieces of its arguments; `index` tells calls apart.
  struct ToolCall {
    int index = 0;
    std::string id, name, arguments;
  };
  std::string content;
  std::string reasoning;  // delta.reasoning_content
  std::vector<ToolCall> tool_calls;
  std::optional<std::string> finish_reason;
  nlohmann::json usage;    // null when the chunk has none
  nlohmann::json timings;  // llama-server's; null when none
};
ChatChunk ReadChatChunk(const nlohmann::json& chunk);

// An engine's error answer (HTTP `status`, OpenAI's error body or any text)
// as a Status, so that each API renders it in its own error shape: a 4xx is
// the client's (kInvalidArgument; 404 kNotFound), anything else the
// engine's (kEngineFailed). The message is the engine's own when it gave one.
Status EngineErrorStatus(int status, std::string_view body);

}  // namespace zest::relay
