// Errors in OpenAI's shape, {"error":{"message","type","param","code"}},
// and the one mapping from zest's ErrorCode to HTTP status and error code.
// Every API family renders errors through here (Ollama/Anthropic shapes
// will add their own renderers over the same mapping).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "http/response_writer.h"

namespace zest::api::openai {

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

}  // namespace zest::api::openai
