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
}

TEST(HostPortTest, RefusesWhatIsNotHostAndPort) {
  for (const char* bad : {"localhost", ":9378", "host:", "host:65536", "host:12a", "host:123456"}) {
    auto r = ParseHostPort(bad, "--node");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--node: \"" + std::string(bad) + "\" is not HOST:PORT"),
              std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace zest
