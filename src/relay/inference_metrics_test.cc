#include "relay/inference_metrics.h"

#include <gtest/gtest.h>

namespace zest::relay {
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
    RequestObserver o(&m, Api::kOpenAi, "chat_completions", "tiny", "");
    o.OnStreamEvent(R"({"choices":[{"delta":{"role":"assistant","content":null}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{"content":"a"}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{"content":"b"}}]})");
    o.OnStreamEvent(R"({"choices":[{"delta":{"content":"c"}}]})");
    o.OnStreamEvent(
        R"({"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"prompt_n":4,"predicted_n":3,"cache_n":0}})");
    o.OnStreamEvent("[DONE]");
    o.Finish(200);
  }
  EXPECT_EQ(m.time_to_first_token.With({"tiny"}).Read().count, 1u);
  EXPECT_EQ(m.inter_token_latency.With({"tiny"}).Read().count, 2u);
  EXPECT_EQ(m.completion_tokens.With({"tiny"}).value(), 3);
  EXPECT_EQ(m.prompt_tokens.With({"tiny"}).value(), 4);
  EXPECT_EQ(m.requests.With({"openai", "chat_completions", "tiny", "200"}).value(), 1);
  EXPECT_EQ(m.duration.With({"openai", "chat_completions", "tiny"}).Read().count, 1u);
}

TEST(TokenUsageTest, ReadsEngineTimings) {
  TokenUsage u = ParseTokenUsage(
      R"({"usage":{"prompt_tokens":4,"completion_tokens":2},"timings":{"prompt_ms":12.5,"predicted_per_second":40.0}})");
  EXPECT_EQ(u.prompt_ms, 12.5);
  EXPECT_EQ(u.predicted_per_second, 40.0);
  EXPECT_FALSE(ParseTokenUsage(R"({"usage":{"prompt_tokens":4}})").prompt_ms.has_value());
}

TEST(TokenUsageTest, ReadsDraftedAndAcceptedTokens) {
  TokenUsage u =
      ParseTokenUsage(R"({"timings":{"predicted_n":40,"draft_n":36,"draft_n_accepted":30}})");
  EXPECT_EQ(u.draft_n, 36u);
  EXPECT_EQ(u.draft_accepted, 30u);
  EXPECT_FALSE(ParseTokenUsage(R"({"timings":{"predicted_n":40}})").draft_n.has_value());
}

TEST(RequestObserverTest, CountsDraftedAndAcceptedTokensPerModel) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  for (int i = 0; i < 2; ++i) {
    RequestObserver o(&m, Api::kOpenAi, "chat_completions", "t", "");
    o.OnStreamEvent(
        R"({"choices":[],"timings":{"prompt_n":4,"predicted_n":9,"draft_n":8,"draft_n_accepted":6}})");
    o.OnStreamEvent(R"({"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":9}})");
    o.Finish(200);
  }
  EXPECT_EQ(m.spec_drafted.With({"t"}).value(), 16);
  EXPECT_EQ(m.spec_accepted.With({"t"}).value(), 12);
  EXPECT_EQ(m.Last()->draft_tokens, 8u);
  EXPECT_EQ(m.Last()->accepted_tokens, 6u);
}

TEST(RequestObserverTest, LastStatsKeepTimingsFromAnEarlierEvent) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  EXPECT_FALSE(m.Last().has_value());
  RequestObserver o(&m, Api::kOpenAi, "chat_completions", "tiny", "");
  o.SetStream(true);
  o.OnStreamEvent(R"({"choices":[{"delta":{"content":"a"}}]})");
  o.OnStreamEvent(
      R"({"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"prompt_n":4,"predicted_n":1,"cache_n":0,"prompt_ms":250,"predicted_per_second":80}})");
  o.OnStreamEvent(
      R"({"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}})");
  o.Finish(200);
  std::optional<RequestStats> last = m.Last();
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(last->stream);
  EXPECT_TRUE(last->time_to_first_token_s.has_value());
  EXPECT_EQ(last->prompt_processing_s, 0.25);
  EXPECT_EQ(last->tokens_per_second, 80.0);
  EXPECT_EQ(last->cached_tokens, 2u);
  EXPECT_EQ(m.prompt_processing.With({"tiny"}).Read().count, 1u);
  EXPECT_DOUBLE_EQ(m.prompt_processing.With({"tiny"}).Read().sum, 0.25);
}

// A short answer asked whole (engine_relay.cc) is timed from the engine's
// timings: the time until it came, less the generation after the first
// token; one without text, or one not asked so, is not timed.
TEST(RequestObserverTest, TimesAWholeAnswerFromItsTimingsWhenAsked) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  const std::string body =
      R"({"choices":[{"message":{"role":"assistant","content":"ab"}}],"usage":{"prompt_tokens":4,"completion_tokens":2},"timings":{"predicted_ms":250}})";
  {
    RequestObserver o(&m, Api::kOpenAi, "chat_completions", "tiny", "");
    const auto answered_at = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    o.OnBody(body, ParseTokenUsage(body), true, answered_at);
    o.Finish(200);
  }
  EXPECT_EQ(m.time_to_first_token.With({"tiny"}).Read().count, 1u);
  const double ttft = m.time_to_first_token.With({"tiny"}).Read().sum;
  EXPECT_GT(ttft, 0.74);
  EXPECT_LT(ttft, 0.80);  // 1 s less 0.25 s, and the moments between
  EXPECT_EQ(m.Last()->time_to_first_token_s, ttft);
  EXPECT_EQ(m.completion_tokens.With({"tiny"}).value(), 2);
  {
    RequestObserver untimed(&m, Api::kOpenAi, "chat_completions", "tiny", "");
    untimed.OnBody(body);  // logprobs, say: asked whole for its own reasons
    untimed.Finish(200);
    RequestObserver empty(&m, Api::kOpenAi, "chat_completions", "tiny", "");
    const std::string no_text = R"({"choices":[{"message":{"content":""}}]})";
    empty.OnBody(no_text, ParseTokenUsage(no_text), true, std::chrono::steady_clock::now());
    empty.Finish(200);
  }
  EXPECT_EQ(m.time_to_first_token.With({"tiny"}).Read().count, 1u);
}

// The relay reads a stream event's counts once and hands them to both.
TEST(TokenUsageTest, OnlyTheClosingEventsAreRead) {
  EXPECT_FALSE(EventUsage(R"({"choices":[{"delta":{"content":"a"}}]})").has_value());
  std::optional<TokenUsage> closing =
      EventUsage(R"({"choices":[],"timings":{"predicted_ms":3.5}})");
  ASSERT_TRUE(closing.has_value());
  EXPECT_EQ(closing->predicted_ms, 3.5);
  EXPECT_TRUE(EventUsage(R"({"usage":{"prompt_tokens":1}})")->found);
}

TEST(RequestObserverTest, CountsQueueWaitAndRejections) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  RequestObserver admitted(&m, Api::kOpenAi, "chat_completions", "tiny", "");
  admitted.OnAdmitted("high", 0.5);
  RequestObserver rejected(&m, Api::kOpenAi, "chat_completions", "tiny", "");
  rejected.OnRejected("queue_full");
  rejected.Finish(429);
  EXPECT_EQ(m.queue_wait.With({"tiny", "high"}).Read().count, 1u);
  EXPECT_EQ(m.rejections.With({"tiny", "queue_full"}).value(), 1);
  EXPECT_FALSE(m.Last().has_value());  // a failed request is not "the last request"
}

TEST(RequestObserverTest, UnknownModelCountsOnlyTheRequest) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  RequestObserver o(&m, Api::kOpenAi, "chat_completions", "", "");
  o.Finish(404);
  EXPECT_EQ(m.requests.With({"openai", "chat_completions", "", "404"}).value(), 1);
  EXPECT_EQ(registry.Render().find("zest_request_duration_seconds_count"), std::string::npos);
}

TEST(InferenceMetricsTest, KeepsEachKeysLastRequestApart) {
  metrics::Registry registry;
  InferenceMetrics m(registry);
  RequestStats first;
  first.completion_tokens = 3;
  m.SetLast("app", first);
  RequestStats second;
  second.completion_tokens = 5;
  m.SetLast("ops", second);
  EXPECT_EQ(m.Last()->completion_tokens, 5u);
  EXPECT_EQ(m.LastOf("app")->completion_tokens, 3u);
  EXPECT_EQ(m.LastOf("ops")->completion_tokens, 5u);
  EXPECT_FALSE(m.LastOf("other").has_value());
}

}  // namespace
}  // namespace zest::relay
