// How a relayed request fails (engine_relay.h). Before the client has a
// byte of its answer: an error in its API's shape (RelayRequest::send_error),
// with Retry-After for the server's failures (SaysRetryAfter). After: the
// event that ends its stream, in its API's shape (the translator's). And an
// engine that broke off, reported to the pool, so that another may try.
//
// Internal to relay/; on the request's coroutine.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>

#include "core/result.h"
#include "http/response_writer.h"
#include "relay/engine_relay.h"
#include "scheduler/instance.h"
#include "scheduler/instance_dispatch.h"

namespace zest::relay {

// Why an engine broke off a request before the client had all of its
// answer (the pool has been told), and whether the engine was killed from
// outside rather than crashing on its own.
struct EngineBreak {
  Status why;
  bool killed = false;
};

// What one try on an engine came to: nullopt when the client has its
// answer (or an error, or left); else why the engine broke off before the
// client had all of it, so another engine may try.
using Outcome = std::optional<EngineBreak>;

// Tells the pool `instance` broke off (it forgets an instance whose engine
// is dead, waiting a moment for it to die) and says why, for another try.
boost::asio::awaitable<EngineBreak> ReportBreak(scheduler::InstanceDispatch& pool,
                                                std::shared_ptr<scheduler::Instance> instance,
                                                Status why);

// The event that ends a stream the client has part of with an error.
std::string StreamErrorEvent(const RelayRequest& request, const Status& status);

// An error before any engine output: an HTTP error, or an SSE error event
// when a wait heartbeat already started the stream.
boost::asio::awaitable<void> SendFailure(http::ResponseWriter& writer, const RelayRequest& request,
                                         const Status& status, const http::Headers& headers);

// (No default argument above: a braced `{}` temporary inside co_await is
// what GCC 12 miscompiles.)
boost::asio::awaitable<void> SendFailure(http::ResponseWriter& writer, const RelayRequest& request,
                                         const Status& status);

}  // namespace zest::relay
