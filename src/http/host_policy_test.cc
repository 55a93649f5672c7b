#include "http/host_policy.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

TEST(HostPolicy, LoopbackAddressesTheBindNameAndConfiguredNamesOnly) {
  HostPolicy policy("0.0.0.0", {"zest.example.com", ".lan.example"}, "mybox");
  for (const char* host : {"", "localhost", "LOCALHOST:9378", "localhost.", "app.localhost:80",
                           "127.0.0.1", "127.0.0.1:9378", "[::1]:9378", "192.168.1.20:9378",
                           "[fe80::1]", "zest.example.com", "Zest.Example.Com:443", "lan.example",
                           "gpu1.lan.example:9378", "mybox", "mybox.local:9378"}) {
    EXPECT_TRUE(policy.Allows(host)) << host;
  }
  for (const char* host :
       {"rebind.attacker.example", "localhost.attacker.example", "zest.example.com.evil.net",
        "evillan.example", "127.0.0.1.nip.io", "mybox.evil", "local host", "a/b", "[::1", "[::1]x",
        "x:80x", "x:", "localhost:80:80"}) {
    EXPECT_FALSE(policy.Allows(host)) << host;
  }
}

TEST(HostPolicy, ABindNameIsAllowed) {
  HostPolicy policy("zest.internal", {}, "");
  EXPECT_TRUE(policy.Allows("zest.internal:9378"));
  EXPECT_FALSE(policy.Allows("other.internal"));
}

TEST(HostPolicy, NameIsThePlainLowerCaseNameOrNothing) {
  EXPECT_EQ(HostPolicy::Name("Example.COM:80"), "example.com");
  EXPECT_EQ(HostPolicy::Name("[::1]:9378"), "[::1]");
  EXPECT_EQ(HostPolicy::Name("evil.com/x"), std::nullopt);
  EXPECT_EQ(HostPolicy::Name("a@b"), std::nullopt);
  EXPECT_EQ(HostPolicy::Name("host\r\nX: y"), std::nullopt);
}

}  // namespace
}  // namespace zest::http
