#include "api/request/errors.h"

#include <nlohmann/json.hpp>

#include "relay/json_text.h"

namespace zest::api {

ApiError MapStatus(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kOk:
      return {200, "", ""};
    case ErrorCode::kInvalidArgument:
      return {400, "invalid_request_error", "invalid_request"};
    case ErrorCode::kNotFound:
      return {404, "invalid_request_error", "model_not_found"};
    case ErrorCode::kAlreadyExists:
      return {409, "invalid_request_error", "already_exists"};
    case ErrorCode::kTooLarge:
      return {413, "invalid_request_error", "request_too_large"};
    case ErrorCode::kUnsupported:
      return {400, "invalid_request_error", "unsupported"};
    case ErrorCode::kUnavailable:
      return {503, "server_error", "engine_unavailable"};
    case ErrorCode::kEngineFailed:
      return {500, "server_error", "engine_failed"};
    case ErrorCode::kTimeout:
      return {504, "server_error", "timeout"};
    case ErrorCode::kQueueFull:
      return {429, "rate_limit_error", "queue_full"};
    case ErrorCode::kQueueTimeout:
      return {503, "server_error", "queue_timeout"};
    case ErrorCode::kInsufficientMemory:
      return {507, "server_error", "insufficient_memory"};
    case ErrorCode::kConflict:
      return {409, "invalid_request_error", "conflict"};
    case ErrorCode::kCancelled:
      return {499, "server_error", "cancelled"};
    case ErrorCode::kInternal:
      return {500, "server_error", "internal_error"};
  }
  return {500, "server_error", "internal_error"};
}

std::string ErrorBody(std::string_view message, std::string_view type, std::string_view code,
                      std::string_view param) {
  nlohmann::json error = {
      {"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}};
  if (!param.empty()) error["param"] = param;
  if (!code.empty()) error["code"] = code;
  return relay::JsonText(nlohmann::json{{"error", error}});
}

std::string RenderHttpError(int http_status, const std::string& message) {
  switch (http_status) {
    case 400:
      return ErrorBody(message, "invalid_request_error", "invalid_request");
    case 404:
      return ErrorBody(message, "invalid_request_error", "not_found");
    case 405:
      return ErrorBody(message, "invalid_request_error", "method_not_allowed");
    case 401:
      return ErrorBody(message, "invalid_request_error", "invalid_api_key");
    case 403:
      return ErrorBody(message, "permission_error", "forbidden");
    case 408:
      return ErrorBody(message, "invalid_request_error", "request_timeout");
    case 413:
      return ErrorBody(message, "invalid_request_error", "request_too_large");
    case 429:
      return ErrorBody(message, "rate_limit_error", "rate_limit_exceeded");
    case 431:
      return ErrorBody(message, "invalid_request_error", "headers_too_large");
    default:
      return ErrorBody(message, "server_error", "internal_error");
  }
}

boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                       std::string_view param) {
  const http::Headers none;
  co_await SendError(writer, status, param, none);
}

boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                       std::string_view param, const http::Headers& headers) {
  ApiError e = MapStatus(status);
  co_await writer.Send(e.http_status, "application/json",
                       ErrorBody(status.message(), e.type, e.code, param), headers);
}

}  // namespace zest::api
