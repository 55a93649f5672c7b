#include "http/url_host.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

TEST(UrlHostTest, HostOfHttpUrls) {
  EXPECT_EQ(UrlHost("http://LocalHost:8080/a/b.png?x=1"), "localhost");
  EXPECT_EQ(UrlHost("https://images.example.com"), "images.example.com");
  EXPECT_EQ(UrlHost("http://[::1]:9/x"), "::1");
  EXPECT_EQ(UrlHost("https://127.0.0.1#f"), "127.0.0.1");
}

TEST(UrlHostTest, AuthorityAndRestAsWritten) {
  std::string_view authority;
  std::string_view rest;
  EXPECT_EQ(UrlHost("http://Host:81/p?q", &authority, &rest), "host");
  EXPECT_EQ(authority, "Host:81");
  EXPECT_EQ(rest, "/p?q");
}

TEST(UrlHostTest, NothingForWhatCouldNameAnotherHost) {
  EXPECT_EQ(UrlHost("http://user@evil.example/x"), "");
  EXPECT_EQ(UrlHost("http://good.example@evil.example"), "");
  EXPECT_EQ(UrlHost("ftp://example.com/x"), "");
  EXPECT_EQ(UrlHost("file:///etc/passwd"), "");
  EXPECT_EQ(UrlHost("http:///x"), "");
  EXPECT_EQ(UrlHost("http://[::1/x"), "");
  EXPECT_EQ(UrlHost("http://a b/x"), "");
  EXPECT_EQ(UrlHost("example.com/x"), "");
}

}  // namespace
}  // namespace zest::http
