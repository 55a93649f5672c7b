#include "cli/api_client.h"

#include <gtest/gtest.h>

namespace zest::cli {
namespace {

TEST(ApiClientTest, ServerUrlFromEnvAddsSchemeAndDefaults) {
  EXPECT_EQ(ServerUrlFromEnv(nullptr), "http://127.0.0.1:9378");
  EXPECT_EQ(ServerUrlFromEnv(""), "http://127.0.0.1:9378");
  EXPECT_EQ(ServerUrlFromEnv("0.0.0.0:8080"), "http://0.0.0.0:8080");
  EXPECT_EQ(ServerUrlFromEnv("https://box:1/"), "https://box:1");
}

TEST(ApiClientTest, UnreachableServerIsUnavailableWithHint) {
  ApiClient client("http://127.0.0.1:1");  // nothing listens on port 1
  auto r = client.Get("/health");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("zest serve"), std::string::npos);
}

}  // namespace
}  // namespace zest::cli
