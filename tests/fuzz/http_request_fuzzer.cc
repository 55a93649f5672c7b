// Fuzzes what the gateway does with a client's raw bytes before a handler
// runs: Beast's request parser with zest's limits (http/request_parsing),
// the conversion to http::Request, routing, the CORS decision and the API
// key check — the same functions Connection calls, in the same order.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "http/authenticator.h"
#include "http/cors.h"
#include "http/request_parsing.h"
#include "http/router.h"

namespace {

using namespace zest::http;

struct Fixture {
  Router router;
  CorsPolicy cors{{"https://app.example.com"}};
  std::unique_ptr<Authenticator> auth;
  ServerOptions options;

  Fixture() {
    Handler none;  // never called: only matching is fuzzed
    router.Add("GET", "/health", none);
    router.Add("GET", "/v1/models/{id...}", none);
    router.Add("POST", "/v1/chat/completions", none);
    router.Add("DELETE", "/api/v1/models/{name...}", none);
    router.Add("GET", "/api/v1/x/{a}/y", none);
    router.SetAccess("GET", "/health", Access::kPublic);
    auth = std::move(Authenticator::Create({"fuzz-key", {}}).value());
    options.max_header_bytes = 8 * 1024;
    options.max_body_bytes = 64 * 1024;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = new Fixture();  // built once; never freed (libFuzzer idiom)
  RequestParser parser;
  ConfigureParser(parser, fixture->options);
  parser.eager(true);
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  boost::system::error_code ec;
  while (!rest.empty() && !parser.is_done()) {
    std::size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    if (ec == boost::beast::http::error::need_more) break;
    if (ec) break;
    rest.remove_prefix(used);
    if (used == 0) break;
  }
  // The client closing its end, as Beast's read does it: EOF before any
  // byte is end_of_stream, after some it completes or fails the message.
  if (!ec && !parser.is_done() && parser.got_some()) parser.put_eof(ec);
  if (ec && ec != boost::beast::http::error::need_more) {
    (void)StatusForParseError(ec);
    (void)MessageForParseError(ec, fixture->options);
  }
  if (!parser.is_header_done()) return 0;
  Request request = RequestHead(parser.get(), "192.0.2.1");
  Router::Match match = fixture->router.Find(request.method, request.path);
  std::string_view origin = request.Header("Origin");
  if (!origin.empty()) (void)fixture->cors.Allows(origin, request.Header("Host"));
  if (match.kind == Router::MatchKind::kFound) {
    (void)fixture->auth->Check(request.headers, match.access);
  }
  if (parser.is_done()) request.body = parser.get().body();
  return 0;
}
