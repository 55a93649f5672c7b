#include "relay/engine_connect.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/logging.h"
#include "relay/prefill_handoff.h"
#include "scheduler/slot_owners.h"

namespace zest::relay {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

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

}  // namespace

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

}  // namespace zest::relay
