#include "api/recent_errors.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

TEST(RecentErrors, MessagesInEachApisShape) {
  EXPECT_EQ(RecentErrors::MessageOf(R"({"error":{"message":"no model 'x'","type":"a"}})"),
            "no model 'x'");
  EXPECT_EQ(RecentErrors::MessageOf(R"({"type":"error","error":{"type":"b","message":"bad"}})"),
            "bad");
  EXPECT_EQ(RecentErrors::MessageOf(R"({"error":"model 'y' not found"})"), "model 'y' not found");
  EXPECT_EQ(RecentErrors::MessageOf("plain text"), "plain text");
  EXPECT_EQ(RecentErrors::MessageOf(std::string(600, 'x')).size(), 500 + std::string("…").size());
}

TEST(RecentErrors, NewestFirstAndBounded) {
  RecentErrors errors(2);
  errors.Add({"a", "POST", "/v1/chat/completions", 404, R"({"error":{"message":"one"}})"});
  errors.Add({"b", "GET", "/api/v1/logs", 401, R"({"error":{"message":"two"}})"});
  errors.Add({"c", "POST", "/api/chat", 400, R"({"error":"three"})"});
  nlohmann::json list = errors.Json();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["request_id"], "c");
  EXPECT_EQ(list[0]["message"], "three");
  EXPECT_EQ(list[0]["status"], 400);
  EXPECT_EQ(list[1]["request_id"], "b");
  EXPECT_EQ(list[1]["path"], "/api/v1/logs");
  EXPECT_GT(list[1]["time"].get<double>(), 1.7e9);
}

}  // namespace
}  // namespace zest::api
