#include "core/host_port.h"

#include <gtest/gtest.h>

namespace zest {
namespace {

TEST(HostPortTest, NamesAddressesAndIpv6InBrackets) {
  auto a = ParseHostPort("127.0.0.1:11434", "x");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 11434);
  auto b = ParseHostPort("[::1]:9378", "x");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 9378);
  EXPECT_TRUE(ParseHostPort("node-a:0", "x").ok());
  for (const char* good : {"gpu-box.lan:9378", "10.0.0.2:1", "my_host:80", "::1:9378",
                           "[fe80::1%eth0]:9378", "[::ffff:10.0.0.1]:80", "0.0.0.0:8080"}) {
    EXPECT_TRUE(ParseHostPort(good, "x").ok()) << good;
  }
}

TEST(HostPortTest, RefusesWhatIsNotHostAndPort) {
  for (const char* bad :
       {"localhost", ":9378", "host:", "host:65536", "host:12a", "host:123456",
        // What would add a line or a word to a config or a command line.
        "a\nbind *:80:9378", "a b:80", "a\"b:80", "a;b:80", "a#b:80", "-a:80", "a..b:80",
        "[::1\n]:80", "[fe80::1%]:80", "[fe80::1%e th]:80", "a/b:80", "*:80"}) {
    auto r = ParseHostPort(bad, "--node");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--node: \"" + std::string(bad) + "\" is not HOST:PORT"),
              std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace zest
