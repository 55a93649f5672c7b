#include "relay/stream_relay.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <string_view>

#include "core/logging.h"
#include "http/sse.h"
#include "relay/engine_speed.h"
#include "relay/stream_chunk.h"

namespace zest::relay {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

// The content type of the client's stream.
std::string_view StreamContentType(const RelayRequest& request) {
  return request.translator->stream_content_type();
}

// What the client gets for each of one engine's stream events (data, not
// comments): the event as it came, or as FixChunk (stream_chunk.h) changes
// it, only the new part of a continuation (stream_resume.h), in the
// client's API's shape when it has a translator. The event is the one the
// relay read its counts from (engine_event.h): its JSON, where anything
// parsed it, is parsed once for all of them, and dumped once where FixChunk
// changed it. Pure but for `resume`, which it tells what the client got.
class StreamRewriter {
 public:
  StreamRewriter(const RelayRequest& request, const std::string* rename, StreamResume* resume)
      : request_(request),
        rename_(rename),
        resume_(resume),
        continuation_(resume != nullptr && resume->continuing()),
        // A chat stream's first chunk must name the role (stream_chunk.h).
        role_pending_(IsChat(request) && !continuation_) {}

  // The bytes to send for `event` (`raw`: its SSE bytes, sent as they are
  // when it is unchanged, so most events are not copied; else a buffer
  // valid until the next call); null: nothing.
  const std::string* Rewrite(const std::string& raw, EngineEvent& event) {
    std::optional<std::string> continued;
    std::optional<EngineEvent> continued_event;
    EngineEvent* sent = &event;
    if (continuation_) {
      continued = resume_->Continue(event.data());
      if (!continued) return nullptr;  // nothing the client does not have
      sent = &continued_event.emplace(*continued);
      FixChunk(*sent, false, rename_);
    } else {
      FixChunk(event, role_pending_, rename_);
    }
    role_pending_ = false;
    if (resume_ != nullptr) resume_->Sent(sent->Text());
    if (std::optional<std::string> translated = request_.translator->StreamEvent(*sent)) {
      out_ = std::move(*translated);
      return out_.empty() ? nullptr : &out_;
    }
    if (sent == &event && !event.changed()) return &raw;
    out_ = http::SseData(sent->Text());
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

// Chunks name the model as the engine knows it (its --alias: zest's name,
// or its own tag); the client gets the name it asked for (an alias): the
// name to put in them, or null when the two agree.
const std::string* RenameFor(const RelayRequest& request, const scheduler::Instance& instance) {
  const std::string& model_name = ClientName(request);
  const std::string& engine_name =
      instance.engine_model.empty() ? request.model.name : instance.engine_model;
  return engine_name == model_name ? nullptr : &model_name;
}

// One engine's stream relayed to the client (RelayStream): its events as
// they come, what to do when it breaks off, and the client's stream's end.
class StreamRelay {
 public:
  StreamRelay(scheduler::InstanceDispatch& pool, scheduler::InstanceLease& lease,
              http::UpstreamResponse& upstream, http::ResponseWriter& writer,
              const RelayRequest& request, StreamResume* resume)
      : pool_(pool),
        lease_(lease),
        upstream_(upstream),
        writer_(writer),
        request_(request),
        resume_(resume),
        instance_(lease.instance()),
        rewriter_(request, RenameFor(request, *instance_), resume) {}

  awaitable<Outcome> Run() {
    while (true) {
      auto piece = co_await upstream_.ReadSome();
      // After "[DONE]" the slot is free and the engine may be stopped (evicted)
      // before the body's last bytes are read: the stream is whole all the same.
      if (!piece.ok() && done_) break;
      if (!piece.ok()) {
        Broken broken = co_await Broke(piece.status());
        if (!broken.closed) co_return std::move(broken.outcome);
        break;
      }
      if (!piece->has_value()) break;
      if (!co_await Relay(**piece)) co_return std::nullopt;
    }
    co_await Close();
    co_return std::nullopt;
  }

 private:
  // What a stream that broke off comes to (Broke).
  struct Broken {
    bool closed = false;  // the client's stream was ended here: only its close is left
    Outcome outcome;      // else the try's outcome
  };

  // The engine broke off (`why`): another engine may try if the client had
  // none of this one's events, or may carry the answer on (`resume_`);
  // else the client's stream ends, whole when only its end was missing.
  awaitable<Broken> Broke(const Status& why) {
    if (writer_.client_gone()) co_return Broken{};
    spdlog::warn("{}engine for '{}' broke off a stream{}: {}", RequestTag(request_.request_id),
                 instance_->model(), relayed_ ? "" : " before its first event", why.message());
    EngineBreak broke = co_await ReportBreak(pool_, instance_, why);
    if (!relayed_) co_return Broken{.closed = false, .outcome = std::move(broke)};
    if (resume_ != nullptr && resume_->Finished()) {  // all of it but the stream's end
      const std::string done_event = request_.translator->End();
      co_await writer_.WriteChunk(done_event);
      done_ = true;  // the client's stream is closed
      co_return Broken{.closed = true, .outcome = std::nullopt};
    }
    if (resume_ != nullptr)
      co_return Broken{.closed = false, .outcome = std::move(broke)};  // the rest from another
    co_await writer_.WriteChunk(
        StreamErrorEvent(request_, EngineFailed("the engine for '" + instance_->model() +
                                                "' stopped mid-stream: " + why.message())));
    done_ = true;  // the client's stream is closed (with an error)
    co_return Broken{.closed = true, .outcome = std::nullopt};
  }

  // Relays the events of `piece` as they are complete (the client's stream
  // starts with the first); false when the client is gone.
  awaitable<bool> Relay(std::string_view piece) {
    for (const auto& event : splitter_.Feed(piece)) {
      if (!writer_.started() &&
          !co_await writer_.StartStream(200, StreamContentType(request_), headers_)) {
        co_return false;
      }
      relayed_ = true;
      // Read once, for every reader: the counts here, the rewriter's after.
      EngineEvent engine_event(event.data);
      const std::optional<TokenUsage> usage = EventUsage(engine_event);
      if (uint64_t tokens = usage ? RecordSpeed(*instance_, *usage) : 0; tokens > 0) {
        turn_tokens_ = tokens;
      }
      if (request_.observer != nullptr) request_.observer->OnStreamEvent(event.data, usage);
      if (event.data.empty()) {  // a comment: passed on as it is (SSE only)
        if (!request_.translator->sse()) continue;
        if (!co_await writer_.WriteChunk(event.raw)) co_return false;
        continue;
      }
      if (event.data == "[DONE]") {
        done_ = true;
        lease_.Release();
        if (turn_tokens_ > 0) pool_.TurnEnded(instance_, request_.session, turn_tokens_);
      }
      const std::string* out = rewriter_.Rewrite(event.raw, engine_event);
      if (out != nullptr && !co_await writer_.WriteChunk(*out)) co_return false;
    }
    co_return true;
  }

  // Ends the client's stream (started here if the engine sent no event),
  // with what an engine that ended without its last event left unsaid.
  awaitable<void> Close() {
    if (!writer_.started() &&
        !co_await writer_.StartStream(200, StreamContentType(request_), headers_)) {
      co_return;
    }
    if (const std::string last = request_.translator->StreamEnd(done_, splitter_.pending());
        !last.empty()) {
      co_await writer_.WriteChunk(last);
    }
    co_await writer_.EndStream();
  }

  scheduler::InstanceDispatch& pool_;
  scheduler::InstanceLease& lease_;
  http::UpstreamResponse& upstream_;
  http::ResponseWriter& writer_;
  const RelayRequest& request_;
  StreamResume* const resume_;
  const std::shared_ptr<scheduler::Instance> instance_;
  StreamRewriter rewriter_;
  // A member, not a braced temporary: GCC 12 miscompiles those inside co_await.
  const http::Headers headers_ = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  http::SseSplitter splitter_;
  bool relayed_ = false;      // an event of this engine's went to the client
  bool done_ = false;         // the engine's "[DONE]" came: its answer is whole
  uint64_t turn_tokens_ = 0;  // what the slot holds once the answer is whole
};

}  // namespace

awaitable<Outcome> RelayStream(scheduler::InstanceDispatch& pool, scheduler::InstanceLease& lease,
                               http::UpstreamResponse& upstream, http::ResponseWriter& writer,
                               const RelayRequest& request, StreamResume* resume) {
  StreamRelay relay(pool, lease, upstream, writer, request, resume);
  co_return co_await relay.Run();
}

}  // namespace zest::relay
