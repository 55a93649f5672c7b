#include "cli/haproxy_config.h"

#include <gtest/gtest.h>

namespace zest::cli {
namespace {

HaproxyOptions TwoNodes() {
  HaproxyOptions o;
  o.listen = "0.0.0.0:8080";
  o.nodes = {"10.0.0.1:9378", "[fd00::2]:9378"};
  o.version = "test";
  return o;
}

TEST(HaproxyConfigTest, ChecksReadinessHashesTheModelAndListsEachNode) {
  auto config = HaproxyConfig(TwoNodes());
  ASSERT_TRUE(config.ok()) << config.status().message();
  for (const char* line :
       {"bind 0.0.0.0:8080\n", "tune.bufsize 1048576\n", "option http-buffer-request\n",
        "http-request set-var(txn.zest_model) req.body,json_query('$.model')\n",
        // The session: the header first, then the body's fields, each only if none yet.
        "set-var(txn.zest_session) req.hdr(X-Session-Id) if { req.hdr(X-Session-Id) -m found }\n",
        "set-var(txn.zest_session) req.body,json_query('$.prompt_cache_key') unless {",
        "set-var(txn.zest_session) req.body,json_query('$.metadata.user_id') unless {",
        "unless { var(txn.zest_session) -m found }\n",
        "balance hash var(txn.zest_model),concat(/,txn.zest_session,)\n", "hash-type consistent\n",
        "option httpchk GET /ready\n", "retry-on conn-failure empty-response\n", "maxconn 64\n",
        "server node1 10.0.0.1:9378 check\n", "server node2 fd00::2:9378 check\n"}) {
    EXPECT_NE(config->find(line), std::string::npos) << line << " in\n" << *config;
  }
  EXPECT_EQ(config->find("ssl"), std::string::npos);
}

TEST(HaproxyConfigTest, TlsAndConnectionLimit) {
  HaproxyOptions o = TwoNodes();
  o.tls_pem = "/etc/haproxy/zest.pem";
  o.maxconn_per_node = 8;
  auto config = HaproxyConfig(o);
  ASSERT_TRUE(config.ok());
  EXPECT_NE(config->find("bind 0.0.0.0:8080 ssl crt /etc/haproxy/zest.pem\n"), std::string::npos);
  EXPECT_NE(config->find("maxconn 8\n"), std::string::npos);
}

TEST(HaproxyConfigTest, RefusesBadAddressesNoNodesAndNoConnections) {
  HaproxyOptions o = TwoNodes();
  o.nodes.push_back("nodeC");
  EXPECT_NE(HaproxyConfig(o).status().message().find("--node: \"nodeC\" is not HOST:PORT"),
            std::string::npos);
  o = TwoNodes();
  o.listen = "127.0.0.1:0";
  EXPECT_FALSE(HaproxyConfig(o).ok());
  o = TwoNodes();
  o.nodes.clear();
  EXPECT_FALSE(HaproxyConfig(o).ok());
  o = TwoNodes();
  o.maxconn_per_node = 0;
  EXPECT_FALSE(HaproxyConfig(o).ok());
}

// Values land in the config as words: none may add a line or a directive.
TEST(HaproxyConfigTest, RefusesValuesThatWouldAddDirectives) {
  HaproxyOptions o = TwoNodes();
  o.nodes.push_back("10.0.0.3\n    server evil 1.2.3.4:80");
  EXPECT_FALSE(HaproxyConfig(o).ok());
  o = TwoNodes();
  o.listen = "0.0.0.0:8080 ssl crt /tmp/x.pem";
  EXPECT_FALSE(HaproxyConfig(o).ok());
  for (const char* pem : {"/etc/a.pem\nfrontend evil", "/etc/a b.pem", "/etc/\"a\".pem", "-x"}) {
    o = TwoNodes();
    o.tls_pem = pem;
    auto config = HaproxyConfig(o);
    ASSERT_FALSE(config.ok()) << pem;
    EXPECT_NE(config.status().message().find("--tls:"), std::string::npos);
  }
  o = TwoNodes();
  o.tls_pem = "certs/zest-node_1.pem";
  EXPECT_TRUE(HaproxyConfig(o).ok());
}

}  // namespace
}  // namespace zest::cli
