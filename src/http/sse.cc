#include "http/sse.h"

namespace zest::http {
namespace {

// Position just past the blank line ending the first event in `text`, or 0
// when `text` holds no complete event yet. An event ends at a newline that is
// followed by another line break ("\n\n", "\r\n\r\n" and mixed forms).
std::size_t FindEventEnd(std::string_view text, std::size_t from) {
  for (std::size_t i = text.find('\n', from); i != std::string_view::npos;
       i = text.find('\n', i + 1)) {
    if (i + 1 < text.size() && text[i + 1] == '\n') return i + 2;
    if (i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') return i + 3;
  }
  return 0;
}

// The `data:` values of one event, joined by "\n" (the SSE field rules: a
// single space after the colon is not part of the value; ':' starts a comment).
std::string ExtractData(std::string_view event) {
  std::string data;
  bool first = true;
  while (!event.empty()) {
    std::size_t end = event.find('\n');
    std::string_view line = event.substr(0, end);
    event.remove_prefix(end == std::string_view::npos ? event.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == ':') continue;
    std::size_t colon = line.find(':');
    if (line.substr(0, colon) != "data") continue;
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (!first) data += '\n';
    data.append(value);
    first = false;
  }
  return data;
}

}  // namespace

std::vector<SseSplitter::Event> SseSplitter::Feed(std::string_view bytes) {
  buffer_.append(bytes);
  std::vector<Event> events;
  std::size_t start = 0;
  // A terminator may straddle the previous end of the buffer: back up two.
  std::size_t from = scanned_ > 2 ? scanned_ - 2 : 0;
  for (;;) {
    std::string_view rest = std::string_view(buffer_).substr(start);
    std::size_t end = FindEventEnd(rest, from);
    if (end == 0) break;
    Event event;
    event.raw.assign(rest.substr(0, end));
    event.data = ExtractData(rest.substr(0, end));
    events.push_back(std::move(event));
    start += end;
    from = 0;
  }
  buffer_.erase(0, start);
  scanned_ = buffer_.size();
  return events;
}

std::string SseData(std::string_view payload) {
  std::string out = "data: ";
  out.append(payload);
  out += "\n\n";
  return out;
}

std::string SseComment(std::string_view text) {
  std::string out = ": ";
  out.append(text);
  out += "\n\n";
  return out;
}

}  // namespace zest::http
