// Connection, the part that decides whether a request may reach its
// handler (http/connection.h): CORS, OPTIONS, the route and its method,
// the API key; and the redirect to HTTPS. Split from connection.cc, which
// reads and answers requests, by concept.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string>
#include <vector>

#include "http/connection.h"
#include "http/host_policy.h"

namespace zest::http {
namespace net = boost::asio;

namespace {

constexpr auto kTuple = net::as_tuple(net::use_awaitable);

std::string JoinMethods(const std::vector<std::string>& methods) {
  std::string joined;
  for (const std::string& method : methods) {
    if (!joined.empty()) joined += ", ";
    joined += method;
  }
  return joined;
}

// What an allowed origin's responses carry. No Allow-Credentials: zest
// authenticates with keys in headers, never cookies.
Headers CorsHeaders(std::string_view origin) {
  Headers headers;
  headers.emplace_back("Access-Control-Allow-Origin", std::string(origin));
  headers.emplace_back("Vary", "Origin");
  headers.emplace_back("Access-Control-Expose-Headers", "Retry-After");
  return headers;
}

// The refused client gets no more than a short answer; with nothing to
// read yet, a small write to a fresh socket does not block.
}  // namespace

net::awaitable<void> Connection::RedirectToHttps(const Request& request) {
  writer_.DisableKeepAlive();
  // An allowed name (checked before), never an arbitrary one, goes back out.
  std::optional<std::string> host = HostPolicy::Name(request.Header("Host"));
  if (!host) {
    std::string message = "a redirect to HTTPS needs a valid Host header";
    co_await SendError(400, message);
    co_return;
  }
  uint16_t port = context_->options.redirect_to_https_port;
  std::string location = "https://" + *host + (port == 443 ? "" : ":" + std::to_string(port)) +
                         (request.target.starts_with('/') ? request.target : "/");
  Headers headers;
  headers.emplace_back("Location", location);
  std::string no_body;  // named: GCC 12 mis-destroys temporaries inside co_await
  co_await writer_.Send(308, "", std::move(no_body), headers);
}

net::awaitable<const Handler*> Connection::Admit(Request& request) {
  std::string_view origin = request.Header("Origin");
  if (!origin.empty()) {
    if (!context_->cors.Allows(origin, request.Header("Host"))) {
      NoteRejected("cors");
      co_await Refuse(403, "cross-origin requests from '" + std::string(origin) +
                               "' are not allowed; add the origin to server.cors_origins");
      co_return nullptr;
    }
    writer_.SetCommonHeaders(CorsHeaders(origin));
  }
  if (request.method == "OPTIONS") {
    co_await AnswerOptions(request);
    co_return nullptr;
  }
  Router::Match match = context_->router->Find(request.method, request.path);
  if (match.kind == Router::MatchKind::kNoRoute) {
    co_await Refuse(404, "no route for " + request.method + " " + request.path);
    co_return nullptr;
  }
  if (match.kind == Router::MatchKind::kWrongMethod) {
    // Built outside the co_await: GCC 12 rejects a braced list inside it.
    Headers allow;
    allow.emplace_back("Allow", JoinMethods(match.allowed));
    co_await Refuse(405, "method " + request.method + " not allowed for " + request.path, allow);
    co_return nullptr;
  }
  AuthDecision decision;
  if (context_->options.auth) {
    decision = context_->options.auth->Check(request.headers, match.access, remote_address_);
  }
  if (decision.delay.count() > 0) {  // a wrong key past its address's allowance
    net::steady_timer slow(socket_.get_executor());
    slow.expires_after(decision.delay);
    co_await slow.async_wait(kTuple);
  }
  if (!decision.allowed()) {
    Headers extra;
    if (decision.status == 401) extra.emplace_back("WWW-Authenticate", "Bearer");
    if (decision.retry_after_s > 0) {
      extra.emplace_back("Retry-After", std::to_string(decision.retry_after_s));
    }
    NoteRejected(decision.status == 429 ? "rate_limit" : "auth");
    co_await Refuse(decision.status, decision.message, extra);
    co_return nullptr;
  }
  request.principal = std::move(decision.principal);
  request.default_priority = std::move(decision.priority);
  request.inference_key = decision.scope == Access::kInference;
  request.keys_required = decision.keys_required;
  request.access = decision.scope;
  request.params = std::move(match.params);
  json_body_ = match.body == BodyKind::kJson;
  long_lived_ = match.long_lived;
  co_return match.handler;
}

// OPTIONS: the methods a path allows; for a (validated) cross-origin
// preflight also what the browser may send. Needs no key: browsers send
// preflights without credentials.
net::awaitable<void> Connection::AnswerOptions(const Request& request) {
  Router::Match match = context_->router->Find(request.method, request.path);
  if (match.kind == Router::MatchKind::kNoRoute) {
    co_await Refuse(404, "no route for " + request.path);
    co_return;
  }
  std::string methods = JoinMethods(match.allowed);
  Headers headers;
  headers.emplace_back("Allow", methods);
  if (!request.Header("Origin").empty()) {
    std::string_view asked = request.Header("Access-Control-Request-Headers");
    headers.emplace_back("Access-Control-Allow-Methods", methods);
    std::string allow_headers(asked.empty() ? "authorization, content-type, x-api-key" : asked);
    headers.emplace_back("Access-Control-Allow-Headers", allow_headers);
    headers.emplace_back("Access-Control-Max-Age", "600");
  }
  if (body_pending_) writer_.DisableKeepAlive();
  co_await writer_.Send(204, "", "", headers);
}

}  // namespace zest::http
