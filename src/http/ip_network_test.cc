// Address ranges as an operator writes them, and which addresses are
// globally reachable: the check that keeps an allowed image host's name
// from being pointed at this machine or its network.
#include "http/ip_network.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

namespace zest::http {
namespace {

namespace ip = boost::asio::ip;

ip::address A(const char* text) { return ip::make_address(text); }

TEST(IpNetwork, ParsesRangesAndSingleAddresses) {
  std::optional<IpNetwork> ten = IpNetwork::Parse("10.0.0.0/8");
  ASSERT_TRUE(ten);
  EXPECT_TRUE(ten->Contains(A("10.255.1.2")));
  EXPECT_FALSE(ten->Contains(A("11.0.0.1")));
  EXPECT_TRUE(ten->Contains(A("::ffff:10.1.2.3")));  // the same address, written as IPv6
  EXPECT_FALSE(ten->Contains(A("::1")));

  std::optional<IpNetwork> one = IpNetwork::Parse("127.0.0.1");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->ToString(), "127.0.0.1/32");
  EXPECT_TRUE(one->Contains(A("127.0.0.1")));
  EXPECT_FALSE(one->Contains(A("127.0.0.2")));

  std::optional<IpNetwork> odd = IpNetwork::Parse("172.16.0.0/12");
  ASSERT_TRUE(odd);
  EXPECT_TRUE(odd->Contains(A("172.31.255.255")));
  EXPECT_FALSE(odd->Contains(A("172.32.0.0")));

  std::optional<IpNetwork> six = IpNetwork::Parse("fd00::/8");
  ASSERT_TRUE(six);
  EXPECT_TRUE(six->Contains(A("fd12:3456::1")));
  EXPECT_FALSE(six->Contains(A("fe80::1")));

  std::optional<IpNetwork> mapped = IpNetwork::Parse("::ffff:192.168.0.0/112");
  ASSERT_TRUE(mapped);
  EXPECT_EQ(mapped->ToString(), "192.168.0.0/16");

  for (const char* bad : {"images.example.com", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/8x", "::/129",
                          "::ffff:1.2.3.4/95", ""}) {
    EXPECT_FALSE(IpNetwork::Parse(bad)) << bad;
  }
}

TEST(IpNetwork, OnlyGloballyReachableAddressesAreGlobal) {
  for (const char* global : {"1.1.1.1", "8.8.8.8", "93.184.216.34", "2606:4700::1111",
                             "::ffff:8.8.8.8", "172.32.0.1", "100.128.0.1"}) {
    EXPECT_TRUE(IsGloballyReachable(A(global))) << global;
  }
  for (const char* local : {"127.0.0.1",
                            "127.8.9.10",
                            "0.0.0.0",
                            "10.0.0.1",
                            "172.16.5.4",
                            "192.168.1.1",
                            "169.254.169.254",
                            "100.64.0.1",
                            "192.0.2.1",
                            "198.18.0.1",
                            "224.0.0.1",
                            "255.255.255.255",
                            "::1",
                            "::",
                            "fe80::1",
                            "fd00::1",
                            "ff02::1",
                            "::ffff:127.0.0.1",
                            "::ffff:169.254.169.254",
                            "2001:db8::1",
                            "2002:7f00:1::1",
                            "2001:0:1::1",
                            "64:ff9b::a00:1"}) {
    EXPECT_FALSE(IsGloballyReachable(A(local))) << local;
  }
}

TEST(IpNetwork, ReadsSocketAddresses) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  inet_pton(AF_INET, "192.168.7.8", &in.sin_addr);
  EXPECT_EQ(AddressOf(reinterpret_cast<sockaddr*>(&in)), A("192.168.7.8"));
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "2606:4700::1111", &in6.sin6_addr);
  EXPECT_EQ(AddressOf(reinterpret_cast<sockaddr*>(&in6)), A("2606:4700::1111"));
  sockaddr other{};
  other.sa_family = AF_UNIX;
  EXPECT_FALSE(AddressOf(&other));
}

}  // namespace
}  // namespace zest::http
