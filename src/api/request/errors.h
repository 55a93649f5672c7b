// Errors: the one mapping from zest's ErrorCode to HTTP status and error
// code, which every API uses, and zest's own error body, which is OpenAI's
// shape, {"error":{"message","type","param","code"}}: the OpenAI routes',
// the admin routes' and the HTTP layer's (no route, body too large...).
// Ollama's and Anthropic's handlers render their own shapes over the same
// mapping.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "http/response_writer.h"

namespace zest::api {

struct ApiError {
  int http_status = 500;
  std::string type;  // "invalid_request_error", "server_error", ...
  std::string code;  // "model_not_found", "engine_failed", ...
};

ApiError MapStatus(const Status& status);

std::string ErrorBody(std::string_view message, std::string_view type, std::string_view code,
                      std::string_view param = {});

// For errors the HTTP layer produces itself (no route, wrong method, body
// too large, unparsable request, handler crashed).
std::string RenderHttpError(int http_status, const std::string& message);

// Answers with the mapped status and an OpenAI error body.
boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                       std::string_view param = {});
// The same with extra headers (e.g. Retry-After on 429).
boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                       std::string_view param, const http::Headers& headers);

}  // namespace zest::api
