// Server-sent events framing: splitting an upstream byte stream into events
// (so each is relayed and flushed whole) and formatting events we originate.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace zest::http {

// Accumulates bytes and yields complete events (terminated by a blank line,
// "\n\n" or "\r\n\r\n"). The raw text of each event, terminator included, is
// kept so it can be forwarded byte for byte.
class SseSplitter {
 public:
  struct Event {
    std::string raw;   // exactly as received, including the blank line
    std::string data;  // the joined `data:` field values ("" for comments)
  };
  std::vector<Event> Feed(std::string_view bytes);
  // Bytes received after the last complete event.
  const std::string& pending() const { return buffer_; }

 private:
  std::string buffer_;
  // Bytes of buffer_ already searched for a terminator, so a long event
  // arriving in many small pieces is not rescanned from the start each time.
  std::size_t scanned_ = 0;
};

// "data: <payload>\n\n" (payload must be one line, e.g. compact JSON).
std::string SseData(std::string_view payload);
// ": <text>\n\n", a comment line clients ignore (heartbeats).
std::string SseComment(std::string_view text);

}  // namespace zest::http
