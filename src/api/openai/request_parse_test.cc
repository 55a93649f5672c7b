#include "api/openai/request_parse.h"

#include <gtest/gtest.h>

namespace zest::api::openai {
namespace {

TEST(RequestParseTest, ChatRequestGivesModelAndStream) {
  auto r = ParseInferenceRequest(
      Endpoint::kChatCompletions,
      R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->model, "m");
  EXPECT_TRUE(r->stream);
}

TEST(RequestParseTest, StreamDefaultsToFalseAndNullIsFalse) {
  auto r =
      ParseInferenceRequest(Endpoint::kCompletions, R"({"model":"m","prompt":"x","stream":null})");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->stream);
}

struct BadCase {
  Endpoint endpoint;
  const char* body;
  const char* param;  // expected param, "" when none
};

class RequestParseBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(RequestParseBadTest, IsInvalidArgumentNamingTheField) {
  std::string param;
  auto r = ParseInferenceRequest(GetParam().endpoint, GetParam().body, &param);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(param, GetParam().param);
}

INSTANTIATE_TEST_SUITE_P(
    All, RequestParseBadTest,
    ::testing::Values(
        BadCase{Endpoint::kChatCompletions, "{not json", ""},
        BadCase{Endpoint::kChatCompletions, "[1,2]", ""},
        BadCase{Endpoint::kChatCompletions, R"({"messages":[{"role":"user"}]})", "model"},
        BadCase{Endpoint::kChatCompletions, R"({"model":"","messages":[]})", "model"},
        BadCase{Endpoint::kChatCompletions, R"({"model":3,"messages":[]})", "model"},
        BadCase{Endpoint::kChatCompletions, R"({"model":"m"})", "messages"},
        BadCase{Endpoint::kChatCompletions, R"({"model":"m","messages":[]})", "messages"},
        BadCase{Endpoint::kChatCompletions, R"({"model":"m","messages":["hi"]})", "messages"},
        BadCase{Endpoint::kChatCompletions,
                R"({"model":"m","messages":[{"role":"user"}],"stream":"yes"})", "stream"},
        BadCase{Endpoint::kCompletions, R"({"model":"m"})", "prompt"},
        BadCase{Endpoint::kCompletions, R"({"model":"m","prompt":5})", "prompt"},
        BadCase{Endpoint::kEmbeddings, R"({"model":"m"})", "input"}));

}  // namespace
}  // namespace zest::api::openai

namespace zest::api::openai {
namespace {

TEST(RequestLimitsTest, MessagesAndTokenCap) {
  RequestLimits limits{2, 100};
  std::string param;
  auto three = ParseInferenceRequest(
      Endpoint::kChatCompletions,
      R"({"model":"m","messages":[{"role":"user"},{"role":"user"},{"role":"user"}]})", &param,
      limits);
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(param, "messages");
  auto big = ParseInferenceRequest(
      Endpoint::kCompletions, R"({"model":"m","prompt":"x","max_tokens":101})", &param, limits);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(param, "max_tokens");
  EXPECT_TRUE(ParseInferenceRequest(Endpoint::kCompletions,
                                    R"({"model":"m","prompt":"x","max_tokens":100})", &param,
                                    limits)
                  .ok());
}

TEST(RequestLimitsTest, TokenLimitsAreIntegersFromZeroToTheCap) {
  RequestLimits limits{2, 100};
  for (const char* body : {R"({"model":"m","prompt":"x","max_tokens":-1})",
                           R"({"model":"m","prompt":"x","n_predict":-1})",
                           R"({"model":"m","prompt":"x","max_completion_tokens":-5})",
                           R"({"model":"m","prompt":"x","max_tokens":1.5})",
                           R"({"model":"m","prompt":"x","max_tokens":"10"})"}) {
    std::string param;
    auto r = ParseInferenceRequest(Endpoint::kCompletions, body, &param, limits);
    EXPECT_FALSE(r.ok()) << body;
    EXPECT_FALSE(param.empty()) << body;
  }
  auto none = ParseInferenceRequest(Endpoint::kCompletions, R"({"model":"m","prompt":"x"})",
                                    nullptr, limits);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->max_tokens_given);
  auto some = ParseInferenceRequest(Endpoint::kCompletions,
                                    R"({"model":"m","prompt":"x","n_predict":0})", nullptr, limits);
  ASSERT_TRUE(some.ok());
  EXPECT_TRUE(some->max_tokens_given);
}

TEST(RequestLimitsTest, ADefaultLimitIsAddedWithoutTouchingTheRest) {
  EXPECT_EQ(WithMaxTokens(R"({"model":"m","prompt":"x"})", 16),
            R"({"max_tokens":16,"model":"m","prompt":"x"})");
  EXPECT_EQ(WithMaxTokens(" {\n \"model\": \"m\"}", 8), " {\"max_tokens\":8,\n \"model\": \"m\"}");
  EXPECT_EQ(WithMaxTokens("{ }", 8), R"({"max_tokens":8 })");
  auto parsed = ParseInferenceRequest(Endpoint::kCompletions,
                                      WithMaxTokens(R"({"model":"m","prompt":"x"})", 16));
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->max_tokens_given);
}

}  // namespace
}  // namespace zest::api::openai
