// EngineEvent: one `data:` event of an engine's SSE stream, read once for
// every consumer in the relay. The relay hands the same EngineEvent to the
// usage and speed readers (inference_metrics.h, engine_speed.h), the
// changes it makes itself (stream_chunk.h's FixChunk), the client's API
// (AnswerTranslator::StreamEvent) and, for a whole answer put together
// from a stream, the assembler (stream_assembly.h). Its JSON is parsed at
// the first consumer that asks for it, never again; an event no consumer
// reads as JSON (OpenAI's pass-through with no alias, text chunks that
// carry no counts) is never parsed, and goes out as the engine's bytes.
// Changed, it is dumped once, when its text is asked for.
//
// Views `data` (the splitter's event), which must outlive it; used by one
// request's coroutine, not thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace zest::relay {

class EngineEvent {
 public:
  explicit EngineEvent(std::string_view data) : data_(data) {}

  // The event's data as the engine sent it.
  std::string_view data() const { return data_; }
  // The stream's end marker, "[DONE]".
  bool done() const { return data_ == "[DONE]"; }
  // Whether its text may hold usage or timings: a search, no parse (most
  // events are a token's chunk and do not).
  bool MayCarryCounts() const;

  // Its JSON, parsed at the first call (discarded, null, when the data is
  // not JSON).
  const nlohmann::json& Doc();
  // The same, to change: the event is then sent as its changed JSON.
  nlohmann::json& MutableDoc();
  bool changed() const { return changed_; }
  // Whether a consumer read its JSON (what a pass-through should not need).
  bool parsed() const { return doc_.has_value(); }

  // The data the client's side sees: the engine's bytes while unchanged,
  // else the changed JSON as compact text, dumped once (valid while this
  // event lives and is not changed again).
  std::string_view Text();

 private:
  std::string_view data_;
  std::optional<nlohmann::json> doc_;
  bool changed_ = false;
  std::optional<std::string> text_;  // the dump of a changed doc_
};

}  // namespace zest::relay
