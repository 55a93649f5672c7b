#include "http/request_parsing.h"

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>

namespace zest::http {
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;

namespace {

std::string ToString(beast::string_view text) { return std::string(text.data(), text.size()); }

bool IsChunked(beast::string_view token) {
  while (!token.empty() && (token.front() == ' ' || token.front() == '\t')) token.remove_prefix(1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
  return beast::iequals(token, "chunked");
}

}  // namespace

void ConfigureParser(RequestParser& parser, const ServerOptions& options) {
  parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
  parser.body_limit(options.max_body_bytes);
}

Request RequestHead(const RequestMessage& message, const std::string& remote_address) {
  Request request;
  request.method = ToString(message.method_string());
  request.target = ToString(message.target());
  std::size_t question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string::npos) request.query = request.target.substr(question + 1);
  for (const auto& field : message) {
    request.headers.emplace_back(ToString(field.name_string()), ToString(field.value()));
  }
  request.remote_address = remote_address;
  return request;
}

bool HasUnsupportedTransferCoding(const RequestMessage& message) {
  int codings = 0;
  auto [field, end] = message.equal_range(beast_http::field::transfer_encoding);
  for (; field != end; ++field) {
    beast::string_view value = field->value();
    while (true) {
      const std::size_t comma = value.find(',');
      if (!IsChunked(value.substr(0, comma))) return true;
      ++codings;
      if (comma == beast::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  return codings > 1;  // chunked twice is not allowed either (RFC 9112, 6.1)
}

int StatusForParseError(const boost::system::error_code& ec) {
  if (ec == beast_http::error::body_limit) return 413;
  if (ec == beast_http::error::header_limit) return 431;
  // Beast's own parse errors are the client's fault; the connection simply
  // ending (EOF, reset, a partial message cut off) needs no answer.
  bool beast_error =
      ec.category() == beast_http::make_error_code(beast_http::error::bad_method).category();
  if (beast_error && ec != beast_http::error::end_of_stream &&
      ec != beast_http::error::partial_message) {
    return 400;
  }
  return 0;
}

std::string MessageForParseError(const boost::system::error_code& ec,
                                 const ServerOptions& options) {
  switch (StatusForParseError(ec)) {
    case 413:
      return "request body larger than " + std::to_string(options.max_body_bytes) + " bytes";
    case 431:
      return "request headers larger than " + std::to_string(options.max_header_bytes) + " bytes";
    default:
      return "malformed HTTP request: " + ec.message();
  }
}

}  // namespace zest::http
