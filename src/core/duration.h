// Durations as people and Ollama clients write them: "10m", "1h30m",
// "2.5s", "500ms", a bare number of seconds, and negative for "forever"
// (nullopt). Used for keep_alive in requests, the config and the CLI.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace zest {

// nullopt = forever.
using Duration = std::optional<std::chrono::milliseconds>;

// kInvalidArgument naming `what` and the accepted forms for anything else.
Result<Duration> ParseDuration(std::string_view text, std::string_view what = "duration");

// "10m0s"-style text ("forever" for nullopt); ParseDuration reads it back.
std::string FormatDuration(const Duration& duration);

// Now, as seconds since the Unix epoch with a fraction (the "time" fields
// of zest's own JSON).
inline double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace zest
