// Status and Result<T>: expected failures as values, carried up to one
// boundary (the API layer) that maps them to HTTP status codes and error
// bodies. Exceptions are reserved for bugs and are caught once per request.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace zest {

// What went wrong, in terms a caller can act on. The API layer maps each code
// to one HTTP status (see api/request/errors.h).
enum class ErrorCode {
  kOk,
  kInvalidArgument,  // the caller sent something malformed
  kNotFound,         // no such model, file, route...
  kAlreadyExists,
  kTooLarge,      // over a configured size limit
  kUnavailable,   // a dependency (engine, socket) is not answering
  kEngineFailed,  // an engine failed to start or died
  kUnsupported,
  kCancelled,
  kTimeout,
  kQueueFull,           // admission queue over its bounds (429)
  kQueueTimeout,        // waited in the queue past the deadline (503)
  kInsufficientMemory,  // the model does not fit the memory left on any device (507)
  kConflict,            // the target's state forbids it now, e.g. reloading a busy model (409)
  kInternal,
};

const char* ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "not_found: model 'x' ..." for logs.
  std::string ToString() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
inline Status Unavailable(std::string m) { return {ErrorCode::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
inline Status EngineFailed(std::string m) { return {ErrorCode::kEngineFailed, std::move(m)}; }
inline Status InsufficientMemory(std::string m) {
  return {ErrorCode::kInsufficientMemory, std::move(m)};
}
inline Status IoError(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }

// A value or the Status explaining why there is none. Accessing value() of an
// error Result is a bug (checked in debug builds by std::get).
template <typename T>
class [[nodiscard]] Result {
 public:
  // Asio's co_spawn needs default-constructible results; a default Result is
  // an error, so forgetting to assign one cannot pass for success.
  Result() : v_(Status(ErrorCode::kInternal, "result was never set")) {}
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace zest

#define ZEST_CONCAT_INNER_(a, b) a##b
#define ZEST_CONCAT_(a, b) ZEST_CONCAT_INNER_(a, b)

// `lhs` may be a declaration ("json doc") and `tmp` is a name: neither can
// be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)

// Returns the Status from the enclosing function when `expr` is an error.
#define ZEST_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::zest::Status zest_status_ = (expr);        \
    if (!zest_status_.ok()) return zest_status_; \
  } while (0)

// `lhs = value of expr`, or returns its Status from the enclosing function.
#define ZEST_ASSIGN_OR_RETURN(lhs, expr) \
  ZEST_ASSIGN_OR_RETURN_IMPL_(ZEST_CONCAT_(zest_result_, __LINE__), lhs, expr)
#define ZEST_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
