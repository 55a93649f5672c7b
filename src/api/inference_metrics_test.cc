#include "api/inference_metrics.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

TEST(TokenUsageTest, PrefersOpenAiUsage) {
  TokenUsage u = ParseTokenUsage(
      R"({"usage":{"prompt_tokens":20,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":3}},
          "timings":{"prompt_n":1,"predicted_n":9,"cache_n":19}})");
  ASSERT_TRUE(u.found);
  EXPECT_EQ(u.prompt, 20u);
  EXPECT_EQ(u.completion, 5u);
  EXPECT_EQ(u.cached, 3u);
}

TEST(TokenUsageTest, FallsBackToLlamaServerTimings) {
  TokenUsage u = ParseTokenUsage(R"({"timings":{"prompt_n":1,"predicted_n":9,"cache_n":19}})");
  ASSERT_TRUE(u.found);
  EXPECT_EQ(u.prompt, 20u);
  EXPECT_EQ(u.completion, 9u);
  EXPECT_EQ(u.cached, 19u);
  EXPECT_FALSE(ParseTokenUsage(R"({"choices":[]})").found);
  EXPECT_FALSE(ParseTokenUsage("not json").found);
}

TEST(RequestObserverTest, RecordsStreamLatenciesAndTokens) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  {
    RequestObserver o(&m, "chat_completions", "tiny");
    o.OnStreamEvent(R"({"choices":[{"delta":{"role":"assistant","content":null}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{"content":"a"}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{"content":"b"}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{"content":"c"}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"prompt_n":4,"predicted_n":3,"cache_n":0}})");
    o.OnStreamEvent("[DONE]");
    o.Finish(200);
  }
  EXPECT_EQ(m.time_to_first_token.With({"tiny"}).Read().count, 1u);
  EXPECT_EQ(m.inter_token_latency.With({"tiny"}).Read().count, 2u);
  EXPECT_EQ(m.completion_tokens.With({"tiny"}).value(), 3);
  EXPECT_EQ(m.prompt_tokens.With({"tiny"}).value(), 4);
  EXPECT_EQ(m.requests.With({"chat_completions", "tiny", "200"}).value(), 1);
  EXPECT_EQ(m.duration.With({"chat_completions", "tiny"}).Read().count, 1u);
}

TEST(RequestObserverTest, UnknownModelCountsOnlyTheRequest) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  RequestObserver o(&m, "chat_completions", "");
  o.Finish(404);
  EXPECT_EQ(m.requests.With({"chat_completions", "", "404"}).value(), 1);
  EXPECT_EQ(registry.Render().find("zest_request_duration_seconds_count"), std::string::npos);
}

}  // namespace
}  // namespace zest::api
