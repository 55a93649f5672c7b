#include "http/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace zest::http {
namespace {

TEST(JsonDepth, CountedOutsideStringsOnly) {
  EXPECT_FALSE(JsonDeeperThan(R"({"a":[1,{"b":2}]})", 3));
  EXPECT_TRUE(JsonDeeperThan(R"({"a":[1,{"b":2}]})", 2));
  EXPECT_FALSE(JsonDeeperThan(R"({"a":"[[[[[[\"[[["})", 1));
  EXPECT_TRUE(JsonDeeperThan(std::string(100000, '['), 64));
  EXPECT_TRUE(JsonDeeperThan(std::string(32 * 1024 * 1024, '{'), 64));
}

}  // namespace
}  // namespace zest::http
