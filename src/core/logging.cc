#include "core/logging.h"

#include <fmt/chrono.h>
#include <spdlog/details/log_msg.h>
#include <spdlog/formatter.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "core/result.h"

namespace zest {
namespace {

constexpr std::size_t kLogRingLines = 2000;
constexpr std::string_view kTagOpen = "[req:";

void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// One JSON object per record: {"time","level","msg"[,"request_id"]}.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch());
    std::string time =
        fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z",
                    fmt::gmtime(std::chrono::system_clock::to_time_t(msg.time)), ms.count() % 1000);
    auto level = spdlog::level::to_string_view(msg.level);
    std::string line = JsonLogLine(time, std::string_view(level.data(), level.size()),
                                   std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

// What EscapeControls writes as \xNN.
bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && u != '\t') || u == 0x7f;
}

// spdlog's pattern, over the message with its control characters escaped.
class TextFormatter final : public spdlog::formatter {
 public:
  explicit TextFormatter(std::string pattern)
      : pattern_(pattern),
        inner_(std::make_unique<spdlog::pattern_formatter>(std::move(pattern))) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string_view payload(msg.payload.data(), msg.payload.size());
    if (std::none_of(payload.begin(), payload.end(), IsControl)) return inner_->format(msg, dest);
    const std::string escaped = EscapeControls(payload);
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(escaped.data(), escaped.size());
    inner_->format(copy, dest);
    msg.color_range_start = copy.color_range_start;  // where a color sink colors the level
    msg.color_range_end = copy.color_range_end;
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<TextFormatter>(pattern_);
  }

 private:
  const std::string pattern_;
  const std::unique_ptr<spdlog::formatter> inner_;
};

// Keeps formatted lines in a LineRing (the sink's formatter is the
// logger's, so the ring holds what stderr shows).
class RingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit RingSink(std::shared_ptr<LineRing> ring) : ring_(std::move(ring)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    ring_->Append(std::string_view(formatted.data(), formatted.size()));
  }
  void flush_() override {}

 private:
  std::shared_ptr<LineRing> ring_;
};

}  // namespace

std::shared_ptr<LineRing> SetupLogging(const std::string& level, const std::string& format) {
  auto ring = std::make_shared<LineRing>(kLogRingLines);
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>(
      "zest", spdlog::sinks_init_list{console, std::make_shared<RingSink>(ring)});
  spdlog::set_default_logger(logger);
  if (format == "json") {
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    logger->set_formatter(std::make_unique<TextFormatter>("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ %v"));
  }
  spdlog::set_level(spdlog::level::from_str(level));
  return ring;
}

std::string EscapeControls(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    if (IsControl(c)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string RequestTag(std::string_view request_id) {
  return std::string(kTagOpen) + std::string(request_id) + "] ";
}

std::string JsonLogLine(std::string_view time, std::string_view level, std::string_view message) {
  std::string request_id;
  if (message.starts_with(kTagOpen)) {
    auto close = message.find("] ");
    if (close != std::string_view::npos) {
      request_id = message.substr(kTagOpen.size(), close - kTagOpen.size());
      message.remove_prefix(close + 2);
    }
  }
  std::string out = "{\"time\":";
  AppendJsonString(out, time);
  out += ",\"level\":";
  AppendJsonString(out, level);
  if (!request_id.empty()) {
    out += ",\"request_id\":";
    AppendJsonString(out, request_id);
  }
  out += ",\"msg\":";
  AppendJsonString(out, message);
  out += "}\n";
  return out;
}

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kAlreadyExists:
      return "already_exists";
    case ErrorCode::kTooLarge:
      return "too_large";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kEngineFailed:
      return "engine_failed";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kCancelled:
      return "cancelled";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kQueueFull:
      return "queue_full";
    case ErrorCode::kQueueTimeout:
      return "queue_timeout";
    case ErrorCode::kInsufficientMemory:
      return "insufficient_memory";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(ErrorCodeName(code_)) + ": " + message_;
}

}  // namespace zest
