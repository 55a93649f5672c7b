#include "relay/relay_failure.h"

#include <string_view>

namespace zest::relay {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

// Retry-After for the server's failures that have no estimate of their
// own (the admission queue has one for a full queue): one second, about
// what a small model's killed engine takes to be replaced. A model held
// off after crashing on its own fails at once until its hold ends; its
// error's message says how long that is.
constexpr std::string_view kRetryAfterS = "1";

}  // namespace

bool SaysRetryAfter(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kUnavailable:
    case ErrorCode::kEngineFailed:
    case ErrorCode::kTimeout:
    case ErrorCode::kQueueTimeout:
    case ErrorCode::kInternal:
      return true;
    default:
      return false;
  }
}

// The event that ends a stream the client has part of with an error.
std::string StreamErrorEvent(const RelayRequest& request, const Status& status) {
  return request.translator->StreamError(status);
}

// An error before any engine output: an HTTP error, or an SSE error event
// when a wait heartbeat already started the stream.
awaitable<void> SendFailure(http::ResponseWriter& writer, const RelayRequest& request,
                            const Status& status, const http::Headers& headers) {
  if (writer.client_gone()) co_return;
  if (!writer.started()) {
    const ErrorSender send = request.send_error;  // the API's error shape
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

// Tells the pool `instance` broke off (it forgets an instance whose engine
// is dead, waiting a moment for it to die) and says why, for another try.
awaitable<EngineBreak> ReportBreak(scheduler::InstanceDispatch& pool,
                                   std::shared_ptr<scheduler::Instance> instance, Status why) {
  co_await pool.ReportBroken(instance);
  co_return EngineBreak{std::move(why), instance->KilledFromOutside()};
}

}  // namespace zest::relay
