#include "api/engine_relay.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "api/engine_speed.h"
#include "api/prefill_handoff.h"
#include "api/request/errors.h"
#include "api/stream_assembly.h"
#include "api/stream_chunk.h"
#include "api/stream_resume.h"
#include "api/wait_heartbeat.h"
#include "core/logging.h"
#include "http/sse.h"
#include "http/upstream_client.h"

namespace zest::api {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

constexpr std::size_t kMaxEngineResponseBytes = 256ull * 1024 * 1024;
// How many engines that crashed on their own one request may try before the
// client has a byte of its answer (or, for a chat stream, since the last
// engine that sent some of it): a prompt that crashes the engine would
// crash every engine it is sent to. Engines killed from outside (the OOM
// killer, an operator, the watchdog) are not the request's doing: it tries
// fresh ones until its deadline (scheduler.queue_timeout_s, X-Queue-Timeout).
constexpr int kCrashedEngines = 4;
// All engines one request may use, however much each of them answered.
constexpr int kMaxEngines = 16;
// Answers of at most this many tokens are asked whole even of an engine
// that would be asked for a stream (EngineAdapter::AsksAsStream): what the
// stream buys, an engine that stops at its next token once the client
// left, is little for an answer this short (llama-server 11669 stops a
// whole one within about a second too: its 3000-token answer stopped 1.5 s
// after its client left), and what it costs is paid by every such request:
// an event per token parsed and put together again, the response's headers
// waking zest while the engine computes, and a connection llama-server
// closes after a stream where it keeps a whole answer's alive
// (http/upstream_pool.h). Measured: bench/profiles/gateway-1token.md.
constexpr int64_t kWholeAnswerTokens = 16;

// The model's name as the client spelled it (the registry's when it gave none).
const std::string& ClientName(const RelayRequest& request) {
  return request.client_model.empty() ? request.model.name : request.client_model;
}

// Whether `request` is a chat (not a text completion, an embedding or a
// request in the engine's own shape).
bool IsChat(const RelayRequest& request) {
  return request.chat != nullptr && !request.to_engine &&
         request.chat->kind == engines::Capability::kChat;
}

// The event that ends a stream the client has part of with an error.
std::string StreamErrorEvent(const RelayRequest& request, const Status& status) {
  if (request.translator != nullptr) return request.translator->StreamError(status);
  api::ApiError e = api::MapStatus(status);
  return http::SseData(api::ErrorBody(status.message(), e.type, e.code));
}

// One event of the engine's chat stream in the client's API's shape
// (`translator`): nothing for what is not JSON, the API's error event for
// the engine's error.
std::string TranslateEvent(AnswerTranslator& translator, std::string_view data) {
  if (data == "[DONE]") return translator.End();
  const nlohmann::json chunk = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (!chunk.is_object()) return "";
  if (auto error = chunk.find("error"); error != chunk.end()) {
    const nlohmann::json code =
        error->is_object() ? error->value("code", nlohmann::json()) : nlohmann::json(500);
    return translator.StreamError(
        EngineErrorStatus(code.is_number_integer() ? code.get<int>() : 500, data));
  }
  return translator.Chunk(chunk);
}

// The content type of the client's stream.
std::string_view StreamContentType(const RelayRequest& request) {
  return request.translator != nullptr ? request.translator->stream_content_type()
                                       : "text/event-stream";
}

// Whether an error the client gets says when to try again: the server's
// failures (an engine gone, the deadline passed, a load that failed) do,
// as docs/reliability.md promises; what the client asked wrong does not,
// nor a lack of memory that waiting will not cure.
bool SaysRetryAfter(const Status& status) {
  const int code = api::MapStatus(status).http_status;
  return code >= 500 && code != 507;
}

// Retry-After for the server's failures that have no estimate of their
// own (the admission queue has one for a full queue): one second, about
// what a small model's killed engine takes to be replaced. A model held
// off after crashing on its own fails at once until its hold ends; its
// error's message says how long that is.
constexpr std::string_view kRetryAfterS = "1";

// An error before any engine output: an HTTP error, or an SSE error event
// when a wait heartbeat already started the stream.
awaitable<void> SendFailure(http::ResponseWriter& writer, const RelayRequest& request,
                            const Status& status, const http::Headers& headers) {
  if (writer.client_gone()) co_return;
  if (!writer.started()) {
    const ErrorSender send =
        request.send_error != nullptr ? request.send_error : static_cast<ErrorSender>(&SendError);
    if (SaysRetryAfter(status) && http::FindHeader(headers, "Retry-After").empty()) {
      http::Headers with = headers;
      with.emplace_back("Retry-After", kRetryAfterS);
      co_await send(writer, status, "", with);
    } else {
      co_await send(writer, status, "", headers);
    }
    co_return;
  }
  // Named, not a temporary inside co_await (GCC 12 miscompiles those).
  const std::string event = StreamErrorEvent(request, status);
  bool sent = co_await writer.WriteChunk(event);
  if (sent) co_await writer.EndStream();
}

// (No default argument above: a braced `{}` temporary inside co_await is
// what GCC 12 miscompiles.)
awaitable<void> SendFailure(http::ResponseWriter& writer, const RelayRequest& request,
                            const Status& status) {
  static const http::Headers kNone;
  co_await SendFailure(writer, request, status, kNone);
}

// Why an engine broke off a request before the client had all of its
// answer (the pool has been told), and whether the engine was killed from
// outside rather than crashing on its own.
struct EngineBreak {
  Status why;
  bool killed = false;
};

// Tells the pool `instance` broke off (it forgets an instance whose engine
// is dead, waiting a moment for it to die) and says why, for another try.
awaitable<EngineBreak> ReportBreak(scheduler::InstanceDispatch& pool,
                                   std::shared_ptr<scheduler::Instance> instance, Status why) {
  co_await pool.ReportBroken(instance);
  co_return EngineBreak{std::move(why), instance->KilledFromOutside()};
}

// One Dispatch raced with its request's deadline (DispatchByDeadline),
// shared by the two: the dispatch may outlive the request.
struct DispatchRace {
  explicit DispatchRace(const asio::any_io_executor& executor) : finished(executor) {}
  std::optional<Result<scheduler::InstanceLease>> lease;
  asio::steady_timer finished;  // expires at the deadline; cancelled once `lease` is set
};

// The dispatch, detached from the request that asked for it. A plain
// function, not a lambda: GCC 12 miscompiles lambda coroutines.
awaitable<void> RunDispatch(scheduler::InstanceDispatch& pool, models::ModelEntry model,
                            bool urgent, std::string session, std::shared_ptr<DispatchRace> race) {
  race->lease = co_await pool.Dispatch(std::move(model), urgent, std::move(session));
  race->finished.cancel();
}

// A slot on one of the model's instances by the request's deadline
// (scheduler.queue_timeout_s, X-Queue-Timeout), else kQueueTimeout. An
// engine load takes its own time (engine.ready_timeout_s, and loads again
// after kills while it loads), so the request does not wait on it past its
// deadline: it gets its error (503 with Retry-After, or its stream's error
// event) while the load goes on for the requests after it, and the slot
// the dispatch gets later is given back at once. Raced here rather than
// in the pool, so that nothing the pool awaits is cancelled under the
// other requests waiting for the same load.
awaitable<Result<scheduler::InstanceLease>> DispatchByDeadline(scheduler::InstanceDispatch& pool,
                                                               const RelayRequest& request) {
  auto executor = co_await asio::this_coro::executor;
  const bool urgent = request.admit.priority == scheduler::Priority::kHigh;
  auto race = std::make_shared<DispatchRace>(executor);
  race->finished.expires_at(request.admit.deadline);
  asio::co_spawn(executor, RunDispatch(pool, request.model, urgent, request.session, race),
                 asio::detached);
  // Both run on this executor: `lease` is set and the timer cancelled
  // together, never between this check and the wait.
  if (!race->lease) co_await race->finished.async_wait(asio::as_tuple(asio::use_awaitable));
  if (race->lease) co_return std::move(*race->lease);
  co_return Status(ErrorCode::kQueueTimeout,
                   "no engine for '" + request.model.name +
                       "' was ready by the request's deadline (scheduler.queue_timeout_s or "
                       "X-Queue-Timeout); its load goes on");
}

// How a chat request was asked of its engine (AskChat).
struct Asked {
  bool assemble = false;  // streamed from the engine for a non-streamed request (stream_assembly.h)
  // A short answer asked whole that would have been assembled from a
  // stream (kWholeAnswerTokens): timed from the engine's timings instead.
  bool time_whole = false;
  // The slot zest chose for the request's key, held until it is done
  // (scheduler/slot_owners.h); null when the engine chose.
  std::shared_ptr<void> slot;
};

struct Connection {
  scheduler::InstanceLease lease;  // the slot on the instance, held until the engine has answered
  std::unique_ptr<http::UpstreamResponse> response;
  Asked asked;
  scheduler::SessionTier::SlotClaim restored;  // the slot restored for this request, if one was
};

// The slot zest chose for a request (PlaceSlot): held while `taken` is.
struct PlacedSlot {
  scheduler::SlotOwners::Taken taken;
  bool restored = false;  // its session's file was restored into it
};

// The request as the instance's engine takes it, into `up`: written by its
// adapter with the engine's own model name, asked as a stream when the
// engine would otherwise run on after its client left (stream_assembly.h)
// and the answer may be long (kWholeAnswerTokens), pinned to the slot zest
// placed it in (PlaceSlot), else to the one a split prefill filled.
awaitable<Result<Asked>> AskChat(scheduler::InstanceDispatch& pool, const RelayRequest& request,
                                 std::shared_ptr<scheduler::Instance> instance,
                                 std::shared_ptr<http::UpstreamCanceller> canceller,
                                 const PlacedSlot& placed, http::UpstreamRequest& up) {
  const engines::EngineAdapter* engine = instance->engine;
  if (engine == nullptr) co_return Internal("the instance has no engine adapter");
  engines::ChatCallOptions options;
  options.model = instance->engine_model.empty() ? ClientName(request) : instance->engine_model;
  const std::optional<int64_t>& max_tokens = request.chat->max_tokens;
  const bool short_answer = max_tokens && *max_tokens <= kWholeAnswerTokens;
  const bool streamable = engine->AsksAsStream(*request.chat);
  options.as_stream = streamable && !short_answer;
  if (placed.taken.hold) {
    options.slot = placed.taken.slot;
    options.cache_prompt = placed.taken.reuse || placed.restored;
  }
  if (request.split_prefill) {
    // Named, not temporaries inside co_await (GCC 12).
    std::string client = ClientName(request), tag = RequestTag(request.request_id);
    options.slot = co_await HandOffPrefill(pool, instance, request.chat, std::move(client),
                                           std::move(tag), std::move(canceller));
  }
  Result<engines::EngineCall> call = engine->ChatCall(*request.chat, options);
  if (!call.ok()) co_return call.status();
  up.target = std::move(call->path);
  up.headers = {{"Content-Type", std::move(call->content_type)}};
  up.body = std::move(call->body);
  co_return Asked{.assemble = options.as_stream,
                  .time_whole = streamable && short_answer,
                  .slot = placed.taken.hold};
}

// Whether the session tier keeps `request`'s conversation (not a split
// prefill's: its slot is filled already; not an embedding's).
bool TierKeeps(const RelayRequest& request) {
  const engines::Capability kind = request.chat->kind;
  return request.session_tier != nullptr && !request.session.empty() && !request.split_prefill &&
         (kind == engines::Capability::kChat || kind == engines::Capability::kCompletions);
}

// The slot zest chose for a request whose key keeps its cache apart
// (RelayRequest::cache_owner; scheduler/slot_owners.h), with the session's
// file restored into it (scheduler/session_tier.h) before its first
// request on this engine: then the slot holds the key's own conversation.
// Several sequences run in slots the engine picks: none reusable. Empty
// (no hold) when the engine chooses.
awaitable<PlacedSlot> PlaceSlot(const RelayRequest& request,
                                std::shared_ptr<scheduler::Instance> instance) {
  PlacedSlot placed;
  if (request.cache_owner.empty()) co_return placed;
  if (engines::Sequences(*request.chat) > 1) {
    placed.taken = instance->slot_owners.TakeAll();
    co_return placed;
  }
  placed.taken = instance->slot_owners.Take(request.cache_owner, request.session);
  // The tier restores only a session this engine has not served yet.
  if (TierKeeps(request) && placed.taken.slot) {
    std::string session = request.session;  // named: no temporaries in co_await
    placed.restored = co_await request.session_tier->RestoreInto(instance, std::move(session),
                                                                 *placed.taken.slot);
  }
  co_return placed;
}

// A session's conversation across unloads (scheduler/session_tier.h): when
// the engine chooses the slot, its file is restored into one before its
// first request on this engine (the claim on that slot is kept until this
// request is done); and this request is remembered for the engine's stop.
awaitable<scheduler::SessionTier::SlotClaim> KeepSession(
    const RelayRequest& request, std::shared_ptr<scheduler::Instance> instance,
    const PlacedSlot& placed, const http::UpstreamRequest& up) {
  if (!TierKeeps(request)) co_return nullptr;
  scheduler::SessionTier::SlotClaim claim;
  if (!placed.taken.hold) {
    std::string session = request.session;  // named: no temporaries in co_await
    claim = co_await request.session_tier->RestoreFor(instance, std::move(session));
  }
  request.session_tier->Remember(*instance, request.session, up.target, up.body);
  co_return claim;
}

// Connects to the model's best instance (a slot on it is held from here
// on). Sets `dead` when the instance we got turns out to be dead (killed
// between requests): the pool has forgotten it, and another try starts a
// fresh one.
awaitable<Result<Connection>> Connect(scheduler::InstanceDispatch& pool,
                                      const RelayRequest& request,
                                      std::shared_ptr<http::UpstreamCanceller> canceller,
                                      std::optional<EngineBreak>& dead) {
  auto executor = co_await asio::this_coro::executor;
  auto lease = co_await DispatchByDeadline(pool, request);
  if (!lease.ok()) co_return lease.status();
  http::UpstreamRequest up;
  up.method = "POST";
  up.canceller = canceller;
  up.pool = request.upstream;
  Asked how;
  scheduler::SessionTier::SlotClaim restored;
  if (request.to_engine) {  // in the engine's own shape
    if ((*lease)->engine == nullptr) co_return Internal("the instance has no engine adapter");
    Result<engines::EngineCall> call = request.to_engine(*(*lease)->engine);
    if (!call.ok()) co_return call.status();
    up.target = std::move(call->path);
    up.headers = {{"Content-Type", std::move(call->content_type)}};
    up.body = std::move(call->body);
  } else {
    // Named, not temporaries inside co_await (GCC 12).
    std::shared_ptr<scheduler::Instance> instance = lease->instance();
    PlacedSlot placed = co_await PlaceSlot(request, instance);
    Result<Asked> asked = co_await AskChat(pool, request, instance, canceller, placed, up);
    if (!asked.ok()) co_return asked.status();
    how = *asked;
    restored = co_await KeepSession(request, std::move(instance), placed, up);
  }
  auto response = co_await http::SendUpstream(executor, (*lease)->socket().string(), up);
  if (response.ok()) {
    Connection connection{std::move(*lease), std::move(response).value(), how, std::move(restored)};
    co_return std::move(connection);
  }
  if (response.status().code() == ErrorCode::kCancelled) co_return response.status();
  std::shared_ptr<scheduler::Instance> broken = lease->instance();
  lease->Release();
  dead = co_await ReportBreak(pool, std::move(broken),
                              Unavailable("engine for '" + request.model.name +
                                          "' is not answering: " + response.status().message()));
  co_return dead->why;
}

// What one try on an engine came to: nullopt when the client has its
// answer (or an error, or left); else why the engine broke off before the
// client had all of it, so another engine may try.
using Outcome = std::optional<EngineBreak>;

// The engine's whole answer (`status`, `body`) in the client's API's shape.
awaitable<void> SendTranslated(http::ResponseWriter& writer, const RelayRequest& request,
                               int status, std::string body) {
  if (status != 200)
    co_return co_await SendFailure(writer, request, EngineErrorStatus(status, body));
  const nlohmann::json answer = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  Result<std::string> out =
      answer.is_object() ? request.translator->Whole(answer)
                         : Result<std::string>(EngineFailed("the engine's answer is not JSON"));
  if (!out.ok()) co_return co_await SendFailure(writer, request, out.status());
  co_await writer.Send(200, "application/json", std::move(*out));
}

// The slot is given back once the engine has answered in full, before the
// answer goes out: a slow client does not hold it, and a client's next
// request never finds it still taken by this one.
awaitable<Outcome> RelayWhole(scheduler::InstanceDispatch& pool, scheduler::InstanceLease& lease,
                              http::UpstreamResponse& upstream, const RelayRequest& request,
                              http::ResponseWriter& writer, bool time_whole) {
  std::shared_ptr<scheduler::Instance> held = lease.instance();
  scheduler::Instance& instance = *held;
  auto body = co_await upstream.ReadAll(kMaxEngineResponseBytes);
  lease.Release();
  if (!body.ok() && body.status().code() == ErrorCode::kUnavailable && !writer.client_gone()) {
    co_return co_await ReportBreak(pool, std::move(held), body.status());
  }
  if (!body.ok()) {
    co_await SendFailure(writer, request, body.status());
    co_return std::nullopt;
  }
  if (writer.started()) {  // a heartbeat began the stream: the engine's error as an event
    const std::string event =
        request.translator != nullptr
            ? request.translator->StreamError(EngineErrorStatus(upstream.status(), *body))
            : http::SseData(*body);
    bool sent = co_await writer.WriteChunk(event);
    if (sent) co_await writer.EndStream();
    co_return std::nullopt;
  }
  const bool own_shape = request.from_engine || request.from_engine_async;
  if (own_shape && instance.engine != nullptr) {  // in the engine's own shape
    Result<ApiAnswer> answer;
    if (request.from_engine_async) {
      answer =
          co_await request.from_engine_async(*instance.engine, upstream.status(), std::move(*body));
    } else {
      answer = request.from_engine(*instance.engine, upstream.status(), std::move(*body));
    }
    if (!answer.ok()) {
      co_await SendFailure(writer, request, answer.status());
    } else {
      co_await writer.Send(answer->status, answer->content_type, std::move(answer->body));
    }
    co_return std::nullopt;
  }
  std::string content_type(http::FindHeader(upstream.headers(), "Content-Type"));
  if (content_type.empty()) content_type = "application/json";
  // The answer's counts, read once for the speed averages, the turn and the
  // observer; the turn is told before the client has its answer, so its
  // next turn finds the ledger and the session tier up to date.
  const bool answered = upstream.status() == 200;
  if (answered) {
    const TokenUsage usage = ParseTokenUsage(*body);
    const uint64_t turn_tokens = RecordSpeed(instance, usage);
    if (turn_tokens > 0) pool.TurnEnded(held, request.session, turn_tokens);
    if (request.observer != nullptr) {
      request.observer->OnBody(*body, usage, time_whole, std::chrono::steady_clock::now());
    }
  }
  if (request.translator != nullptr) {
    co_await SendTranslated(writer, request, upstream.status(), std::move(*body));
  } else {
    const std::string& name = ClientName(request);
    bool respell = answered && (name != request.model.name || !instance.engine_model.empty());
    std::string out = respell ? WithModelName(std::move(*body), name) : std::move(*body);
    co_await writer.Send(upstream.status(), content_type, std::move(out));
  }
  co_return std::nullopt;
}

// What the client gets for each of one engine's stream events (data, not
// comments): the event as it came, or as FixChunk (stream_chunk.h) changes
// it, only the new part of a continuation (stream_resume.h), in the
// client's API's shape when it has a translator. Pure but for `resume`,
// which it tells what the client got.
class StreamRewriter {
 public:
  StreamRewriter(const RelayRequest& request, const std::string* rename, StreamResume* resume)
      : request_(request),
        rename_(rename),
        resume_(resume),
        continuation_(resume != nullptr && resume->continuing()),
        // A chat stream's first chunk must name the role (stream_chunk.h).
        role_pending_(IsChat(request) && !continuation_) {}

  // The bytes to send for `event` (its own raw bytes when unchanged, so
  // most events are not copied; else a buffer valid until the next call);
  // null: nothing.
  const std::string* Rewrite(const http::SseSplitter::Event& event) {
    std::optional<std::string> fixed;
    if (continuation_) {
      fixed = resume_->Continue(event.data);
      if (!fixed) return nullptr;  // nothing the client does not have
      if (std::optional<std::string> renamed = FixChunk(*fixed, false, rename_)) fixed = renamed;
    } else {
      fixed = FixChunk(event.data, role_pending_, rename_);
    }
    role_pending_ = false;
    if (resume_ != nullptr) resume_->Sent(fixed ? std::string_view(*fixed) : event.data);
    if (request_.translator != nullptr) {
      out_ = TranslateEvent(*request_.translator, fixed ? std::string_view(*fixed) : event.data);
      return out_.empty() ? nullptr : &out_;
    }
    if (!fixed) return &event.raw;
    out_ = http::SseData(*fixed);
    return &out_;
  }

 private:
  const RelayRequest& request_;
  const std::string* const rename_;
  StreamResume* const resume_;
  const bool continuation_;
  bool role_pending_;
  std::string out_;
};

// The engine's events relayed as they come, byte for byte unless
// FixChunk (stream_chunk.h) has something to change. The slot is given back
// at the engine's closing "[DONE]", before the client has it (as in
// RelayWhole). The client's stream starts with the engine's first event, so
// an engine that dies before it leaves the request to another engine; with
// `resume` (a chat stream), one that dies after it leaves the rest of the
// answer to another engine too (stream_resume.h), and this one may be such
// a continuation.
awaitable<Outcome> RelayStream(scheduler::InstanceDispatch& pool, scheduler::InstanceLease& lease,
                               http::UpstreamResponse& upstream, http::ResponseWriter& writer,
                               const RelayRequest& request, StreamResume* resume) {
  std::shared_ptr<scheduler::Instance> instance = lease.instance();
  // Chunks name the model as the engine knows it (its --alias: zest's name,
  // or its own tag); the client gets the name it asked for (an alias).
  const std::string& model_name = ClientName(request);
  const std::string& engine_name =
      instance->engine_model.empty() ? request.model.name : instance->engine_model;
  const std::string* rename = engine_name == model_name ? nullptr : &model_name;
  StreamRewriter rewriter(request, rename, resume);
  // Named, not a braced temporary: GCC 12 miscompiles those inside co_await.
  const http::Headers headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  http::SseSplitter splitter;
  bool relayed = false;      // an event of this engine's went to the client
  bool done = false;         // the engine's "[DONE]" came: its answer is whole
  uint64_t turn_tokens = 0;  // what the slot holds once the answer is whole
  while (true) {
    auto piece = co_await upstream.ReadSome();
    // After "[DONE]" the slot is free and the engine may be stopped (evicted)
    // before the body's last bytes are read: the stream is whole all the same.
    if (!piece.ok() && done) break;
    if (!piece.ok()) {
      if (writer.client_gone()) co_return std::nullopt;
      spdlog::warn("{}engine for '{}' broke off a stream{}: {}", RequestTag(request.request_id),
                   instance->model(), relayed ? "" : " before its first event",
                   piece.status().message());
      EngineBreak broke = co_await ReportBreak(pool, instance, piece.status());
      if (!relayed) co_return std::move(broke);
      if (resume != nullptr && resume->Finished()) {  // all of it but the stream's end
        const std::string done_event =
            request.translator != nullptr ? request.translator->End() : http::SseData("[DONE]");
        co_await writer.WriteChunk(done_event);
        done = true;  // the client's stream is closed
        break;
      }
      if (resume != nullptr) co_return std::move(broke);  // the rest from another engine
      co_await writer.WriteChunk(StreamErrorEvent(
          request, EngineFailed("the engine for '" + instance->model() +
                                "' stopped mid-stream: " + piece.status().message())));
      done = true;  // the client's stream is closed (with an error)
      break;
    }
    if (!piece->has_value()) break;
    for (const auto& event : splitter.Feed(**piece)) {
      if (!writer.started() &&
          !co_await writer.StartStream(200, StreamContentType(request), headers)) {
        co_return std::nullopt;
      }
      relayed = true;
      const std::optional<TokenUsage> usage = EventUsage(event.data);  // read once, for both
      if (uint64_t tokens = usage ? RecordSpeed(*instance, *usage) : 0; tokens > 0) {
        turn_tokens = tokens;
      }
      if (request.observer != nullptr) request.observer->OnStreamEvent(event.data, usage);
      if (event.data.empty()) {  // a comment: passed on as it is (SSE only)
        if (request.translator != nullptr && !request.translator->sse()) continue;
        if (!co_await writer.WriteChunk(event.raw)) co_return std::nullopt;
        continue;
      }
      if (event.data == "[DONE]") {
        done = true;
        lease.Release();
        if (turn_tokens > 0) pool.TurnEnded(instance, request.session, turn_tokens);
      }
      const std::string* out = rewriter.Rewrite(event);
      if (out != nullptr && !co_await writer.WriteChunk(*out)) co_return std::nullopt;
    }
  }
  if (!writer.started() && !co_await writer.StartStream(200, StreamContentType(request), headers)) {
    co_return std::nullopt;
  }
  if (request.translator == nullptr && !splitter.pending().empty()) {
    co_await writer.WriteChunk(splitter.pending());
  } else if (request.translator != nullptr && !done) {  // ended without its last event
    const std::string event = request.translator->StreamError(
        EngineFailed("the engine's stream ended before the answer did"));
    co_await writer.WriteChunk(event);
  }
  co_await writer.EndStream();
  co_return std::nullopt;
}

// A non-streamed answer put together from the engine's stream as it
// arrives (stream_assembly.h): its status and body, the engine's error
// event if it sent one; kUnavailable when the engine broke off.
struct Assembled {
  int status = 200;
  std::string body;
  uint64_t turn_tokens = 0;  // what the slot holds after it (0: not reported)
};
awaitable<Result<Assembled>> ReadAssembled(scheduler::Instance& instance,
                                           http::UpstreamResponse& upstream,
                                           const RelayRequest& request) {
  StreamAssembler assembler(IsChat(request));
  http::SseSplitter splitter;
  std::size_t bytes = 0;
  uint64_t turn_tokens = 0;
  while (true) {
    auto piece = co_await upstream.ReadSome();
    if (!piece.ok()) co_return piece.status();
    if (!piece->has_value()) break;
    if ((bytes += (*piece)->size()) > kMaxEngineResponseBytes) {
      co_return EngineFailed("the engine's answer is too long");
    }
    for (const auto& event : splitter.Feed(**piece)) {
      const std::optional<TokenUsage> usage = EventUsage(event.data);  // read once, for both
      if (uint64_t tokens = usage ? RecordSpeed(instance, *usage) : 0; tokens > 0) {
        turn_tokens = tokens;
      }
      // Time to first token and token gaps, as for a streamed request.
      if (request.observer != nullptr) request.observer->OnStreamEvent(event.data, usage);
      assembler.Add(event.data);
    }
  }
  Assembled answer;
  if (const std::optional<std::string>& error = assembler.error()) {
    answer.status = assembler.error_status();
    answer.body = *error;
  } else if (assembler.empty()) {
    co_return Unavailable("no answer before the end of the stream");
  } else {
    answer.body = assembler.Finish(ClientName(request));
    answer.turn_tokens = turn_tokens;
  }
  co_return std::move(answer);
}

awaitable<Outcome> RelayAssembled(scheduler::InstanceDispatch& pool, Connection& connected,
                                  const RelayRequest& request, http::ResponseWriter& writer) {
  std::shared_ptr<scheduler::Instance> instance = connected.lease.instance();
  auto answer = co_await ReadAssembled(*instance, *connected.response, request);
  connected.lease.Release();  // as in RelayWhole: the engine is done with it
  if (answer.ok() && answer->turn_tokens > 0) {
    pool.TurnEnded(instance, request.session, answer->turn_tokens);
  }
  if (!answer.ok() && answer.status().code() == ErrorCode::kUnavailable) {  // it broke off
    if (writer.client_gone()) co_return std::nullopt;
    co_return co_await ReportBreak(pool, std::move(instance), answer.status());
  }
  if (!answer.ok()) {  // too long, or the client left
    co_await SendFailure(writer, request, answer.status());
    co_return std::nullopt;
  }
  if (request.translator != nullptr) {
    co_await SendTranslated(writer, request, answer->status, std::move(answer->body));
  } else {
    co_await writer.Send(answer->status, "application/json", std::move(answer->body));
  }
  co_return std::nullopt;
}

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
  const bool warm = request.stream && (request.translator == nullptr || request.translator->sse());
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

}  // namespace zest::api
