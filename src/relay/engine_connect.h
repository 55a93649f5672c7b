// One try's way to an engine (engine_relay.h): a slot on one of the model's
// instances by the request's deadline, the request written for that
// instance's engine (asked as a stream when that stops it sooner once the
// client leaves, pinned to the slot a split prefill filled), a session's
// conversation restored into a slot, and the engine's response headers.
//
// Internal to relay/; on the request's coroutine.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>

#include "core/result.h"
#include "http/upstream_client.h"
#include "relay/engine_relay.h"
#include "relay/relay_failure.h"
#include "scheduler/instance_dispatch.h"
#include "scheduler/session_tier.h"

namespace zest::relay {

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

// Connects to the model's best instance (a slot on it is held from here
// on). Sets `dead` when the instance we got turns out to be dead (killed
// between requests): the pool has forgotten it, and another try starts a
// fresh one.
boost::asio::awaitable<Result<Connection>> Connect(
    scheduler::InstanceDispatch& pool, const RelayRequest& request,
    std::shared_ptr<http::UpstreamCanceller> canceller, std::optional<EngineBreak>& dead);

}  // namespace zest::relay
