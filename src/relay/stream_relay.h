// A streamed answer (engine_relay.h): the engine's events relayed to the
// client as they come, in its API's shape, and what happens when the
// engine breaks off (another engine, or the rest of the answer from one:
// stream_resume.h).
//
// Internal to relay/; on the request's coroutine.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "http/response_writer.h"
#include "http/upstream_client.h"
#include "relay/engine_relay.h"
#include "relay/relay_failure.h"
#include "relay/stream_resume.h"
#include "scheduler/instance_dispatch.h"

namespace zest::relay {

// The engine's events relayed as they come, byte for byte unless
// FixChunk (stream_chunk.h) has something to change. The slot is given back
// at the engine's closing "[DONE]", before the client has it (as in
// RelayWhole). The client's stream starts with the engine's first event, so
// an engine that dies before it leaves the request to another engine; with
// `resume` (a chat stream), one that dies after it leaves the rest of the
// answer to another engine too (stream_resume.h), and this one may be such
// a continuation.
boost::asio::awaitable<Outcome> RelayStream(scheduler::InstanceDispatch& pool,
                                            scheduler::InstanceLease& lease,
                                            http::UpstreamResponse& upstream,
                                            http::ResponseWriter& writer,
                                            const RelayRequest& request, StreamResume* resume);

}  // namespace zest::relay
