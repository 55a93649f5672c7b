// Relaying one inference request to a model's engine and its answer back to
// the client: streamed SSE event by event as it arrives, never buffered
// whole; non-streamed JSON whole (with `model` set to the name the client
// used), for chat and text completions put together from a stream the
// engine is asked for (stream_assembly.h). A client that disconnects cancels
// the engine request at once, so the engine stops generating. An engine
// that dies before the client has a byte of its answer leaves the request
// to a fresh engine; one that dies in the middle of a chat stream leaves
// the rest of the answer to a fresh engine (stream_resume.h); other
// streams end with an error event.
//
// The parts of one try on an engine, internal to relay/: engine_connect.h
// (a slot, the request in the engine's shape), whole_answer.h and
// stream_relay.h (the answer, whole or streamed), relay_failure.h (errors
// and engine breaks).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engines/chat_request.h"
#include "engines/engine_adapter.h"
#include "engines/engine_set.h"
#include "http/response_writer.h"
#include "http/upstream_pool.h"
#include "models/model_registry.h"
#include "relay/answer_translator.h"
#include "relay/inference_metrics.h"
#include "scheduler/admission.h"
#include "scheduler/instance_directory.h"
#include "scheduler/instance_dispatch.h"
#include "scheduler/keep_alive.h"
#include "scheduler/session_tier.h"

namespace zest::relay {

// Answers a client that has no byte of the answer yet with `status`, in its
// API's error shape (with `headers`, e.g. Retry-After; `param`: the
// request's field at fault, "" when none, for the APIs that name it). A
// plain function, not a lambda: GCC 12 miscompiles lambda coroutines.
using ErrorSender = boost::asio::awaitable<void> (*)(http::ResponseWriter& writer,
                                                     const Status& status, std::string_view param,
                                                     const http::Headers& headers);

struct RelayRequest {
  models::ModelEntry model;
  // A chat, text completion or embedding request (engines/chat_request.h),
  // which the dispatched instance's adapter writes in its engine's shape
  // (EngineAdapter::ChatCall). Shared, read-only, by the tries on fresh
  // engines; null for a request in the engine's own shape (`to_engine`).
  std::shared_ptr<const engines::ChatRequest> chat;
  bool stream = false;
  RequestObserver* observer = nullptr;  // sees each event / the whole answer; may be null
  scheduler::AdmitRequest admit;        // priority, tenant, deadline, cost
  std::string client_model;             // the name as the client spelled it
  std::optional<scheduler::KeepAlive> keep_alive;  // the request's own, else the default
  std::string request_id;                          // for log lines about this request
  // The conversation's key (api/session_key.h): dispatch keeps it on the
  // replica that served it last. "" = none.
  std::string session;
  // The API key whose cached prompts this request may reuse, on a server
  // whose keys keep their caches apart: zest then chooses the engine's
  // slot for it (scheduler/slot_owners.h). "" = the engine chooses: no
  // keys, or security.share_prompt_cache.
  std::string cache_owner;
  // Keeps the session's conversation across unloads (set from
  // EngineServices::session_tier); null: not kept.
  scheduler::SessionTier* session_tier = nullptr;
  // Kept-alive engine connections (set from EngineServices::upstream);
  // null: a connection per request.
  http::UpstreamPool* upstream = nullptr;
  // Prefill on another instance of the model first (relay/prefill_handoff.h);
  // set from EngineServices::split_prefill_tokens.
  bool split_prefill = false;
  // A request the engine is asked in its own shape (speech to text): made
  // for the dispatched instance's engine (engines/engine_adapter.h), and its
  // whole answer made into the API's. Unset: `chat` is asked, and the
  // answer comes back as it is (or through `translator`).
  std::function<Result<engines::EngineCall>(const engines::EngineAdapter&)> to_engine;
  std::function<Result<ApiAnswer>(const engines::EngineAdapter&, int status, std::string body)>
      from_engine;
  // The same for an answer that takes work off the I/O threads to make
  // (images converted by ffmpeg), run after the engine's slot is given
  // back; used instead of `from_engine` when set. It must return an
  // awaitable of a member or free coroutine, never be a lambda coroutine
  // itself (GCC 12 miscompiles those).
  std::function<boost::asio::awaitable<Result<ApiAnswer>>(const engines::EngineAdapter&, int status,
                                                          std::string body)>
      from_engine_async;
  // Errors before the answer starts, in the client's API's shape. Never
  // null (api/admit_request.h starts every request with OpenAI's).
  ErrorSender send_error = nullptr;
  // The answer in the client's API's shape (answer_translator.h); the
  // OpenAI routes' passes the engine's through as it is. Never null (as
  // above). Shared by the tries on fresh engines.
  std::shared_ptr<AnswerTranslator> translator;
};

// The model's name as the client spelled it (the registry's when it gave none).
const std::string& ClientName(const RelayRequest& request);

// Whether `request` is a chat (not a text completion, an embedding or a
// request in the engine's own shape).
bool IsChat(const RelayRequest& request);

// The engine side of the gateway: admission, instances and relay.
struct EngineServices {
  scheduler::InstanceDispatch& dispatch;    // a slot on an instance, for a request
  scheduler::InstanceDirectory& instances;  // the instances running now
  const engines::EngineSet* engines;        // the engines zest runs (their adapters)
  scheduler::Admission& admission;
  scheduler::Residency* residency = nullptr;  // keep-alive books; null: none kept
  std::chrono::milliseconds heartbeat{0};     // SSE comments while a stream waits; 0: none
  // Experimental: completions whose prompt is estimated at this many tokens
  // or more prefill on another instance (relay/prefill_handoff.h); 0: never.
  uint64_t split_prefill_tokens = 0;
  // Conversations kept across unloads (scheduler/session_tier.h); null: none.
  scheduler::SessionTier* session_tier = nullptr;
  // Engine connections kept alive between requests (http/upstream_pool.h);
  // null: a connection per request.
  http::UpstreamPool* upstream = nullptr;
};

// Waits for a slot of the model (429/503 when the queue is full or the wait
// too long), then relays. A streamed request that waits longer than the
// heartbeat interval gets its 200 event stream early, with SSE comments while
// it waits; errors after that arrive as an SSE error event.
boost::asio::awaitable<void> RelayToEngine(EngineServices services, RelayRequest request,
                                           http::ResponseWriter& writer);

// Whether an error the client gets says when to try again (Retry-After):
// the server's failures (an engine gone, the deadline passed, a load that
// failed) do, as docs/reliability.md promises; what the client asked wrong
// does not, nor a lack of memory that waiting will not cure, nor a client
// that left. By ErrorCode, as the APIs map them to HTTP statuses 5xx but
// 507 (api/request/errors_test.cc holds the two together).
bool SaysRetryAfter(const Status& status);

}  // namespace zest::relay
