#include "http/client_group.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

TEST(ClientGroup, LoopbackIsOneClient) {
  EXPECT_EQ(ClientGroup("127.0.0.1"), "loopback");
  EXPECT_EQ(ClientGroup("127.0.0.2"), "loopback");
  EXPECT_EQ(ClientGroup("127.255.3.4"), "loopback");
  EXPECT_EQ(ClientGroup("::1"), "loopback");
  EXPECT_EQ(ClientGroup("::ffff:127.0.0.9"), "loopback");
}

TEST(ClientGroup, IPv4AddressesAreThemselves) {
  EXPECT_EQ(ClientGroup("192.168.1.20"), "192.168.1.20");
  EXPECT_EQ(ClientGroup("::ffff:10.0.0.7"), "10.0.0.7");
  EXPECT_NE(ClientGroup("10.0.0.7"), ClientGroup("10.0.0.8"));
}

TEST(ClientGroup, AnIPv6HostIsItsSlash64) {
  EXPECT_EQ(ClientGroup("2001:db8:1:2::5"), "2001:db8:1:2::/64");
  EXPECT_EQ(ClientGroup("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  EXPECT_NE(ClientGroup("2001:db8:1:2::5"), ClientGroup("2001:db8:1:3::5"));
}

TEST(ClientGroup, WhatIsNoAddressStaysAsItCame) {
  EXPECT_EQ(ClientGroup(""), "");
  EXPECT_EQ(ClientGroup("not-an-address"), "not-an-address");
}

}  // namespace
}  // namespace zest::http
