// A non-streamed answer (engine_relay.h): read whole, or put together from
// the stream the engine was asked for (stream_assembly.h), the slot given
// back once the engine has answered, then sent in the client's API's shape
// (AnswerTranslator::Answer), or in the engine's own for a request asked in
// it (RelayRequest::from_engine).
//
// Internal to relay/; on the request's coroutine.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "http/response_writer.h"
#include "http/upstream_client.h"
#include "relay/engine_connect.h"
#include "relay/engine_relay.h"
#include "relay/relay_failure.h"
#include "scheduler/instance_dispatch.h"

namespace zest::relay {

// The slot is given back once the engine has answered in full, before the
// answer goes out: a slow client does not hold it, and a client's next
// request never finds it still taken by this one.
boost::asio::awaitable<Outcome> RelayWhole(scheduler::InstanceDispatch& pool,
                                           scheduler::InstanceLease& lease,
                                           http::UpstreamResponse& upstream,
                                           const RelayRequest& request,
                                           http::ResponseWriter& writer, bool time_whole);

// The answer to a request asked as a stream (Asked::assemble).
boost::asio::awaitable<Outcome> RelayAssembled(scheduler::InstanceDispatch& pool,
                                               Connection& connected, const RelayRequest& request,
                                               http::ResponseWriter& writer);

}  // namespace zest::relay
