// Process-wide logging setup (spdlog). Call SetupLogging once from main
// before any other thread starts; afterwards spdlog's free functions
// (spdlog::info, ...) are safe from any thread.
#pragma once

#include <string>

namespace zest {

// level: trace|debug|info|warn|error. Logs go to stderr.
void SetupLogging(const std::string& level);

}  // namespace zest
