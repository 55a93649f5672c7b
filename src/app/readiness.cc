#include "app/readiness.h"

#include <nlohmann/json.hpp>

namespace zest::app {

std::string_view Readiness::Name(State state) {
  switch (state) {
    case State::kStarting:
      return "starting";
    case State::kReady:
      return "ready";
    case State::kDraining:
      break;
  }
  return "draining";
}

void Readiness::Register(http::Router& router) {
  router.Add("GET", "/ready",
             [this](http::Request&, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
               const State now = state();
               nlohmann::json body = {{"status", Name(now)}};
               if (now == State::kStarting) body["reason"] = "the server is starting";
               if (now == State::kDraining) {
                 body["reason"] = "the server is shutting down: it finishes what it runs";
               }
               // Never cached: a balancer must see the flip at its next check.
               http::Headers headers = {{"Cache-Control", "no-store"}};
               co_await w.Send(now == State::kReady ? 200 : 503, "application/json", body.dump(),
                               headers);
             });
}

}  // namespace zest::app
