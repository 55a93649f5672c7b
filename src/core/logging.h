// Process-wide logging setup (spdlog). Call SetupLogging once from main
// before any other thread starts; afterwards spdlog's free functions
// (spdlog::info, ...) are safe from any thread.
//
// Log lines about one request start with RequestTag(id) ("[req:ID] "): in
// text format it stays in the line; the JSON format moves it into the
// object's "request_id" field.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/ring_buffer.h"

namespace zest {

// level: trace|debug|info|warn|error; format: "text" (spdlog's pattern) or
// "json" (one object per line: time, level, msg, request_id when tagged).
// Logs go to stderr and, formatted the same way, into the returned ring
// (zest's recent lines, for `zest logs`).
std::shared_ptr<LineRing> SetupLogging(const std::string& level,
                                       const std::string& format = "text");

// The prefix that ties a log line to a request.
std::string RequestTag(std::string_view request_id);

// A text log record's message with its control characters (newlines,
// escapes: what a client's model name or path may carry) written as \xNN,
// so that one record stays one line and no terminal sequence reaches the
// reader (exposed for tests). Tabs stay.
std::string EscapeControls(std::string_view message);

// One log record as a JSON object line (exposed for tests). `message` may
// start with a RequestTag.
std::string JsonLogLine(std::string_view time, std::string_view level, std::string_view message);

}  // namespace zest
