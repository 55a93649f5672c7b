#include "app/readiness.h"

#include <nlohmann/json.hpp>

namespace zest::app {

std::string_view Readiness::Name(State state) {
  switch (state) {
    case State::kStarting:
      return "starting";
    case State::kReady:
      return "ready";
    case State::kNotReady:
      return "not_ready";
    case State::kDraining:
      break;
  }
  return "draining";
}

void Readiness::Set(State state, std::string reason) {
  MutexLock lock(mu_);
  if (state_ == State::kDraining) return;
  state_ = state;
  reason_ = state == State::kDraining ? "the server is shutting down: it finishes what it runs"
                                      : std::move(reason);
}

Readiness::State Readiness::state() const {
  MutexLock lock(mu_);
  return state_;
}

void Readiness::Register(http::Router& router) {
  router.Add("GET", "/ready",
             [this](http::Request&, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
               nlohmann::json body;
               bool ready = false;
               {
                 MutexLock lock(mu_);
                 ready = state_ == State::kReady;
                 body["status"] = Name(state_);
                 if (!ready) body["reason"] = reason_;
               }
               // Never cached: a balancer must see the flip at its next check.
               http::Headers headers = {{"Cache-Control", "no-store"}};
               std::string text = body.dump();
               co_await w.Send(ready ? 200 : 503, "application/json", std::move(text), headers);
             });
}

}  // namespace zest::app
