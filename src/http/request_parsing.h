// What the server does with a request's raw bytes before any handler runs:
// the Beast parser with zest's limits, the conversion to http::Request, and
// the error each parse failure is answered with. Shared by Connection and
// the fuzz target (tests/fuzz), so the fuzzer runs exactly this code.
// Private to http/; pure functions.
#pragma once

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>

#include "http/request.h"
#include "http/server.h"

namespace zest::http {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;
using RequestMessage = boost::beast::http::request<boost::beast::http::string_body>;

// Sets header and body limits on a fresh parser.
void ConfigureParser(RequestParser& parser, const ServerOptions& options);

// Method, target, path, query and headers of a parsed header (no body).
Request RequestHead(const RequestMessage& message, const std::string& remote_address);

// Whether the request names a transfer coding other than one chunked (e.g.
// "Transfer-Encoding: gzip, chunked", or chunked twice): Beast undoes the chunking only, so
// such a body would reach a handler still encoded. RFC 9112 answers an
// unknown coding with 501. Tokens are compared case-insensitively, across
// every Transfer-Encoding field.
bool HasUnsupportedTransferCoding(const RequestMessage& message);

// The answer to a failed read: 413 (body limit), 431 (header limit), 400
// (malformed), or 0 when the connection just ended and needs no answer.
int StatusForParseError(const boost::system::error_code& ec);
std::string MessageForParseError(const boost::system::error_code& ec, const ServerOptions& options);

}  // namespace zest::http
