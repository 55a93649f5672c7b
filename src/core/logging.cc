#include "core/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "core/result.h"

namespace zest {

void SetupLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("zest");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ %v");
  spdlog::set_level(spdlog::level::from_str(level));
}

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kAlreadyExists: return "already_exists";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kEngineFailed: return "engine_failed";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kQueueFull: return "queue_full";
    case ErrorCode::kQueueTimeout: return "queue_timeout";
    case ErrorCode::kInsufficientMemory: return "insufficient_memory";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(ErrorCodeName(code_)) + ": " + message_;
}

}  // namespace zest
