#include "relay/engine_relay.h"

#include <spdlog/spdlog.h>

#include <boost/asio/this_coro.hpp>

#include "core/logging.h"
#include "relay/engine_connect.h"
#include "relay/relay_failure.h"
#include "relay/stream_relay.h"
#include "relay/stream_resume.h"
#include "relay/wait_heartbeat.h"
#include "relay/whole_answer.h"

namespace zest::relay {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

// How many engines that crashed on their own one request may try before the
// client has a byte of its answer (or, for a chat stream, since the last
// engine that sent some of it): a prompt that crashes the engine would
// crash every engine it is sent to. Engines killed from outside (the OOM
// killer, an operator, the watchdog) are not the request's doing: it tries
// fresh ones until its deadline (scheduler.queue_timeout_s, X-Queue-Timeout).
constexpr int kCrashedEngines = 4;
// All engines one request may use, however much each of them answered.
constexpr int kMaxEngines = 16;

// One try on an engine: connect, then relay the answer the way it comes.
awaitable<Outcome> RelayOnce(scheduler::InstanceDispatch& pool, const RelayRequest& request,
                             http::ResponseWriter& writer,
                             std::shared_ptr<http::UpstreamCanceller> canceller,
                             WaitHeartbeat& heartbeat, StreamResume* resume) {
  heartbeat.SetPhase("loading");
  std::optional<EngineBreak> dead;
  auto connected = co_await Connect(pool, request, canceller, dead);
  co_await heartbeat.Stop();
  if (dead) co_return std::move(dead);  // now forgotten: another may try
  if (!connected.ok()) {
    if (connected.status().code() != ErrorCode::kCancelled) {
      spdlog::warn("{}no engine for '{}': {}", RequestTag(request.request_id), request.model.name,
                   connected.status().message());
      if (request.observer != nullptr) request.observer->OnFailed("loading");
    }
    co_await SendFailure(writer, request, connected.status());
    co_return std::nullopt;
  }
  // The lease (a slot on the instance) lives until the engine has answered.
  http::UpstreamResponse& upstream = *connected->response;
  bool event_stream =
      http::FindHeader(upstream.headers(), "Content-Type").starts_with("text/event-stream");
  if (request.stream && upstream.status() == 200 && event_stream) {
    co_return co_await RelayStream(pool, connected->lease, upstream, writer, request, resume);
  }
  if (!connected->asked.assemble || upstream.status() != 200 || !event_stream) {
    co_return co_await RelayWhole(pool, connected->lease, upstream, request, writer,
                                  connected->asked.time_whole);
  }
  co_return co_await RelayAssembled(pool, *connected, request, writer);
}

// Tries fresh engines while the one before died before the client had a
// byte of its answer, streamed or not; a chat stream the client has part
// of goes on from where it broke off (stream_resume.h). Gives up after
// kCrashedEngines engines that crashed on their own, at the request's
// deadline, or after kMaxEngines.
awaitable<void> RelayWithSlot(scheduler::InstanceDispatch& pool, const RelayRequest& request,
                              http::ResponseWriter& writer,
                              std::shared_ptr<http::UpstreamCanceller> canceller,
                              WaitHeartbeat& heartbeat) {
  std::optional<StreamResume> resume;
  if (request.stream && !request.to_engine && IsChat(request)) resume.emplace();
  std::optional<RelayRequest> continued;  // the request for the rest of the answer
  int crashed = 0;  // engines that crashed on their own since one last sent something
  for (int tries = 1;; ++tries) {
    const RelayRequest& asked = continued ? *continued : request;
    Outcome broke =
        co_await RelayOnce(pool, asked, writer, canceller, heartbeat, resume ? &*resume : nullptr);
    if (!broke) co_return;
    const bool progressed = resume && resume->has_new();
    if (progressed) {
      crashed = 0;
    } else if (!broke->killed) {
      ++crashed;
    }
    const bool again = crashed < kCrashedEngines && tries < kMaxEngines &&
                       scheduler::Clock::now() < request.admit.deadline;
    RequestObserver* const observer = request.observer;
    if (resume && resume->any_sent()) {
      Result<engines::ChatRequest> rest =
          again ? resume->Continuation(*request.chat) : Result<engines::ChatRequest>(broke->why);
      if (observer != nullptr)
        observer->OnEngineBreak("mid_stream", rest.ok() ? "resumed" : "failed");
      if (!rest.ok()) {
        if (observer != nullptr) observer->OnFailed("mid_stream");
        const Status failed = EngineFailed("the engine for '" + request.model.name +
                                           "' stopped mid-stream: " + broke->why.message() +
                                           (again ? " (" + rest.status().message() + ")" : ""));
        co_return co_await SendFailure(writer, request, failed);
      }
      spdlog::warn("{}engine for '{}' broke off a stream: {}; resuming it on a fresh engine",
                   RequestTag(request.request_id), request.model.name, broke->why.message());
      continued = request;
      continued->chat = std::make_shared<const engines::ChatRequest>(std::move(*rest));
      continued->split_prefill = false;
      continue;
    }
    spdlog::warn("{}engine for '{}' broke off before answering{}: {}",
                 RequestTag(request.request_id), request.model.name,
                 again ? ", trying a fresh one" : "", broke->why.message());
    if (observer != nullptr) observer->OnEngineBreak("before_answer", again ? "retried" : "failed");
    if (again) continue;
    if (observer != nullptr) observer->OnFailed("before_answer");
    const std::string why = crashed >= kCrashedEngines
                                ? std::to_string(crashed) + " engines crashed"
                            : tries >= kMaxEngines ? std::to_string(tries) + " engines tried"
                                                   : "its deadline passed";
    // Past its deadline a request is turned away as the queue would (503),
    // engines that crashed on their own are the engine's failure (500).
    const std::string message = "the engine for '" + request.model.name +
                                "' broke off before answering (" + why +
                                "): " + broke->why.message();
    const Status failed = crashed >= kCrashedEngines || tries >= kMaxEngines
                              ? EngineFailed(message)
                              : Status(ErrorCode::kQueueTimeout, message);
    co_return co_await SendFailure(writer, request, failed);
  }
}

// Queue wait for admitted requests; the reason for those turned away (a
// client that left while queued is neither).
void NoteAdmission(RequestObserver& observer, const scheduler::AdmitRequest& admit,
                   const Status& status, std::chrono::steady_clock::time_point queued_at) {
  if (status.ok()) {
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - queued_at).count();
    observer.OnAdmitted(scheduler::PriorityName(admit.priority), waited);
  } else if (status.code() == ErrorCode::kQueueFull) {
    observer.OnRejected("queue_full");
  } else if (status.code() == ErrorCode::kQueueTimeout) {
    observer.OnRejected("deadline");
  }
}

}  // namespace

const std::string& ClientName(const RelayRequest& request) {
  return request.client_model.empty() ? request.model.name : request.client_model;
}

bool IsChat(const RelayRequest& request) {
  return request.chat != nullptr && !request.to_engine &&
         request.chat->kind == engines::Capability::kChat;
}

awaitable<void> RelayToEngine(EngineServices services, RelayRequest request,
                              http::ResponseWriter& writer) {
  // One canceller covers the queue, connecting, waiting for the
  // (non-streamed) answer and reading the stream: a client that goes away
  // gives up its place and stops the engine work.
  auto canceller = std::make_shared<http::UpstreamCanceller>();
  auto queue_cancel = std::make_shared<scheduler::AdmissionCancel>();
  writer.OnClientGone([canceller, queue_cancel] {
    queue_cancel->Cancel();
    canceller->Cancel();
  });
  // Queued and running requests keep the model loaded; its keep-alive
  // counts from when the answer is done.
  scheduler::ResidencyHold residency(services.residency, request.model.name, request.keep_alive);
  // SSE comments keep a waiting stream warm; other streams (NDJSON) wait quietly.
  const bool warm = request.stream && request.translator->sse();
  WaitHeartbeat heartbeat(co_await asio::this_coro::executor, writer,
                          warm ? services.heartbeat : std::chrono::milliseconds(0),
                          request.model.name);
  heartbeat.Start();
  int retry_after_s = 0;
  auto queued_at = std::chrono::steady_clock::now();
  auto lease = co_await services.admission.Enter(request.admit, queue_cancel, &retry_after_s);
  if (request.observer != nullptr)
    NoteAdmission(*request.observer, request.admit, lease.status(), queued_at);
  if (!lease.ok()) {
    co_await heartbeat.Stop();
    http::Headers headers;
    if (retry_after_s > 0) headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    co_await SendFailure(writer, request, lease.status(), headers);
    writer.OnClientGone(nullptr);
    co_return;
  }
  request.session_tier = services.session_tier;
  request.upstream = services.upstream;
  // Not for a key whose cache is kept apart: the prefill instance's slot
  // is the engine's choice.
  request.split_prefill = services.split_prefill_tokens > 0 && request.cache_owner.empty() &&
                          request.admit.cost >= services.split_prefill_tokens &&
                          request.chat != nullptr && !request.to_engine &&
                          request.chat->kind != engines::Capability::kEmbeddings;
  co_await RelayWithSlot(services.dispatch, request, writer, canceller, heartbeat);
  writer.OnClientGone(nullptr);
}

}  // namespace zest::relay
