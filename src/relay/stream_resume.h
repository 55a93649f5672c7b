// StreamResume: carrying on a streamed chat answer on a fresh engine when
// its engine dies after the client already has part of it (an engine
// killed by the OOM killer or an operator, a crash). The continuation is
// the same request with the text already sent as a trailing assistant
// message, which llama-server takes as the start of its answer (it
// prefills a final assistant message), and its events are made to look
// like the rest of the first stream: the same id and created time, no
// second role, usage counted over the whole answer.
//
// Only plain text answers are resumed: not tool calls, reasoning or
// several choices (the engine cannot be handed those half-done), and not
// after the answer's last chunk (then the stream is only ended). Token
// counts are counted in chunks (llama-server sends one per token, fewer
// when it holds back incomplete UTF-8), so max_tokens and usage are exact
// to within those few.
//
// Nothing is parsed while the stream is whole: the events are kept as the
// client got them (up to kMaxKeptBytes) and read only when resuming.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::relay {

class StreamResume {
 public:
  static constexpr std::size_t kMaxKeptBytes = 8u << 20;

  // Sees each event's data as the client got it (not comments).
  void Sent(std::string_view data);
  // Whether the client has any of the answer.
  bool any_sent() const { return !events_.empty() || continuing_; }
  // Whether events went out since the last Continuation (the engine that
  // broke off got somewhere).
  bool has_new() const { return !events_.empty(); }

  // Whether the answer's last chunk (a finish_reason) went out: nothing is
  // left to resume, only the stream's end.
  bool Finished() const;

  // The request for the continuation of `request` (a chat request), or
  // why the answer cannot be continued. Reads what was sent so far.
  Result<engines::ChatRequest> Continuation(const engines::ChatRequest& request);

  // A continuation's event data as the client should get it; nullopt:
  // left out (its role-only first chunk; any text past the answer's limit).
  // Call after Continuation.
  std::optional<std::string> Continue(std::string_view data);
  bool continuing() const { return continuing_; }

 private:
  std::vector<std::string> events_;  // since the last Continuation
  std::size_t kept_bytes_ = 0;
  bool overflow_ = false;  // more than kMaxKeptBytes: cannot resume
  bool continuing_ = false;
  // Read from the first stream's chunks at the first Continuation.
  std::string id_;
  int64_t created_ = 0;
  bool have_identity_ = false;
  std::string text_;         // the whole answer's text so far
  int64_t sent_tokens_ = 0;  // content chunks the client had, every engine's
  // The client had the answer's whole token limit before the engine broke
  // off (it died after the last token, before the end): the continuation
  // (one token, the least an engine generates) brings only the end.
  bool limit_reached_ = false;
};

}  // namespace zest::relay
