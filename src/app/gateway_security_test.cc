// The gateway's security wiring (gateway_security.h): who may reach which
// route, the refusal to listen off loopback without keys, and the options
// of the second and redirect listeners.
#include "app/gateway_security.h"

#include <gtest/gtest.h>

#include <limits>

namespace zest::app {
namespace {

std::shared_ptr<http::Authenticator> Auth(const char* key = "") {
  auto auth = http::Authenticator::Create({key, ""});
  EXPECT_TRUE(auth.ok()) << auth.status().ToString();
  return auth.ok() ? std::shared_ptr<http::Authenticator>(std::move(*auth)) : nullptr;
}

TEST(CheckBindSafety, OffLoopbackNeedsAKeyOrTheUsersExplicitRisk) {
  auto no_keys = Auth();
  config::Settings s;
  for (const char* loopback : {"127.0.0.1", "::1", "localhost", "127.0.0.2"}) {
    s.host = loopback;
    EXPECT_TRUE(CheckBindSafety(s, *no_keys).ok()) << loopback;
  }
  for (const char* open : {"0.0.0.0", "::", "192.168.1.5"}) {
    s.host = open;
    Status st = CheckBindSafety(s, *no_keys);
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << open;
    EXPECT_NE(st.message().find(std::string("refusing to listen on ") + open), std::string::npos)
        << st.message();
  }
  s.host = "0.0.0.0";
  EXPECT_TRUE(CheckBindSafety(s, *Auth("zk-secret")).ok());
  s.insecure_no_auth = true;
  EXPECT_TRUE(CheckBindSafety(s, *no_keys).ok());
}

TEST(CheckBindSafety, TheOllamaListenerIsCheckedToo) {
  auto no_keys = Auth();
  config::Settings s;
  s.host = "127.0.0.1";
  s.ollama_listen = "127.0.0.1:11434";
  EXPECT_TRUE(CheckBindSafety(s, *no_keys).ok());
  s.ollama_listen = "0.0.0.0:11434";
  EXPECT_EQ(CheckBindSafety(s, *no_keys).code(), ErrorCode::kInvalidArgument);
  s.ollama_listen = "no-port";
  Status malformed = CheckBindSafety(s, *no_keys);
  EXPECT_FALSE(malformed.ok());
  EXPECT_NE(malformed.message().find("server.ollama_listen"), std::string::npos)
      << malformed.message();
}

TEST(ListenerOptions, TheOllamaListenerIsTheGatewayOnAnotherAddress) {
  auto keys = Auth("zk-secret");
  config::Settings s;
  s.host = "127.0.0.1";
  s.port = 9378;
  s.max_body_bytes = 1234;
  s.max_connections = 7;
  s.ollama_listen = "127.0.0.1:11434";
  auto ollama = OllamaListenerOptions(s, keys);
  ASSERT_TRUE(ollama.ok()) << ollama.status().ToString();
  EXPECT_EQ(ollama->host, "127.0.0.1");
  EXPECT_EQ(ollama->port, 11434);
  EXPECT_EQ(ollama->max_body_bytes, 1234u);
  EXPECT_EQ(ollama->max_connections, 7);
  EXPECT_EQ(ollama->auth, keys) << "the same keys as the gateway";
  s.ollama_listen = "127.0.0.1";
  EXPECT_EQ(OllamaListenerOptions(s, keys).status().code(), ErrorCode::kInvalidArgument);
}

TEST(ListenerOptions, TheRedirectNeedsTlsAndNeverReadsABody) {
  config::Settings s;
  s.https_redirect_port = 8080;
  EXPECT_EQ(RedirectOptions(s, 9443).status().code(), ErrorCode::kInvalidArgument);
  s.tls_cert = "/etc/zest/cert.pem";
  s.tls_key = "/etc/zest/key.pem";
  auto redirect = RedirectOptions(s, 9443);
  ASSERT_TRUE(redirect.ok()) << redirect.status().ToString();
  EXPECT_EQ(redirect->port, 8080);
  EXPECT_EQ(redirect->redirect_to_https_port, 9443);
  EXPECT_EQ(redirect->max_body_bytes, std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(redirect->auth, nullptr);
  EXPECT_TRUE(redirect->tls_cert.empty()) << "plain HTTP beside the TLS listener";
}

// Adds, one by one, the routes ApplyAccessRules says are missing, as the
// server's APIs would have registered them; what it then says of each.
http::Router RouterWithEveryRuledRoute(bool metrics_public, bool metrics_enabled = true) {
  http::Router router;
  http::Handler none = [](http::Request&, http::ResponseWriter&) -> boost::asio::awaitable<void> {
    co_return;
  };
  router.Add("POST", "/api/v1/pull", none);  // a route no rule names
  router.Add("GET", "/api/v1/models", none);
  const std::string missing = "access rule for a missing route: ";
  for (int added = 0; added < 100; ++added) {
    Status st = ApplyAccessRules(router, metrics_enabled, metrics_public);
    if (st.ok()) return router;
    const std::string& message = st.message();
    EXPECT_EQ(message.rfind(missing, 0), 0u) << message;
    if (message.rfind(missing, 0) != 0) break;
    std::string route = message.substr(missing.size());
    router.Add(route.substr(0, route.find(' ')), route.substr(route.find(' ') + 1), none);
  }
  ADD_FAILURE() << "ApplyAccessRules never succeeded";
  return router;
}

http::Access AccessOf(const http::Router& router, std::string_view method, std::string_view path) {
  http::Router::Match match = router.Find(method, path);
  EXPECT_EQ(match.kind, http::Router::MatchKind::kFound) << method << " " << path;
  return match.access;
}

TEST(ApplyAccessRules, LivenessIsOpenInferenceNeedsAKeyAndAdministrationAnAdminOne) {
  http::Router router = RouterWithEveryRuledRoute(/*metrics_public=*/false);
  using http::Access;
  EXPECT_EQ(AccessOf(router, "GET", "/health"), Access::kPublic);
  EXPECT_EQ(AccessOf(router, "GET", "/ready"), Access::kPublic);
  EXPECT_EQ(AccessOf(router, "GET", "/metrics"), Access::kInference);
  EXPECT_EQ(AccessOf(router, "GET", "/api/v1/config"), Access::kAdmin);
  EXPECT_EQ(AccessOf(router, "GET", "/api/v1/logs"), Access::kAdmin);
  EXPECT_EQ(AccessOf(router, "POST", "/v1/chat/completions"), Access::kInference);
  EXPECT_EQ(AccessOf(router, "POST", "/api/v1/chat/completions"), Access::kInference);
  EXPECT_EQ(AccessOf(router, "POST", "/v1/messages"), Access::kInference);
  EXPECT_EQ(AccessOf(router, "GET", "/ui/assets/app.js"), Access::kPublic);
  // Routes no rule names keep the Router's defaults.
  EXPECT_EQ(AccessOf(router, "POST", "/api/v1/pull"), Access::kAdmin);
  EXPECT_EQ(AccessOf(router, "GET", "/api/v1/models"), Access::kInference);

  http::Router open_metrics = RouterWithEveryRuledRoute(/*metrics_public=*/true);
  EXPECT_EQ(AccessOf(open_metrics, "GET", "/metrics"), Access::kPublic);
}

// With metrics off the server has no /metrics route: the rules must not
// ask for one (zest refused to start with metrics.enabled = false).
TEST(ApplyAccessRules, WithoutMetricsNoRuleNeedsTheirRoute) {
  http::Router router =
      RouterWithEveryRuledRoute(/*metrics_public=*/false, /*metrics_enabled=*/false);
  EXPECT_EQ(router.Find("GET", "/metrics").kind, http::Router::MatchKind::kNoRoute);
  EXPECT_EQ(AccessOf(router, "GET", "/health"), http::Access::kPublic);
}

}  // namespace
}  // namespace zest::app
