#include "relay/whole_answer.h"

#include <chrono>
#include <optional>
#include <string>

#include "http/sse.h"
#include "relay/engine_speed.h"
#include "relay/stream_assembly.h"

namespace zest::relay {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

constexpr std::size_t kMaxEngineResponseBytes = 256ull * 1024 * 1024;

// The engine's whole answer (`status`, `body`) in the client's API's shape
// (AnswerTranslator::Answer), or its error in the API's error shape.
awaitable<void> SendAnswer(http::ResponseWriter& writer, const RelayRequest& request, int status,
                           std::string body, std::string_view content_type,
                           const std::string* rename) {
  Result<ApiAnswer> out = request.translator->Answer(status, std::move(body), content_type, rename);
  if (!out.ok()) co_return co_await SendFailure(writer, request, out.status());
  co_await writer.Send(out->status, out->content_type, std::move(out->body));
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
      // Read once, for every reader: the counts, then the assembler.
      EngineEvent engine_event(event.data);
      const std::optional<TokenUsage> usage = EventUsage(engine_event);
      if (uint64_t tokens = usage ? RecordSpeed(instance, *usage) : 0; tokens > 0) {
        turn_tokens = tokens;
      }
      // Time to first token and token gaps, as for a streamed request.
      if (request.observer != nullptr) request.observer->OnStreamEvent(event.data, usage);
      assembler.Add(engine_event);
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

}  // namespace

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
    const std::string event = request.translator->ErrorEvent(upstream.status(), *body);
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
  const std::string& name = ClientName(request);
  const bool respell = answered && (name != request.model.name || !instance.engine_model.empty());
  co_await SendAnswer(writer, request, upstream.status(), std::move(*body), content_type,
                      respell ? &name : nullptr);
  co_return std::nullopt;
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
  co_await SendAnswer(writer, request, answer->status, std::move(answer->body), "application/json",
                      nullptr);
  co_return std::nullopt;
}

}  // namespace zest::relay
