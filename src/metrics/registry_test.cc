#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <thread>

namespace zest::metrics {
namespace {

TEST(HistogramTest, BucketsAreCumulativeAndInclusive) {
  Histogram h({0.1, 1, 10});
  for (double v : {0.05, 0.1, 0.5, 1.0, 5.0, 50.0}) h.Observe(v);
  Histogram::Snapshot s = h.Read();
  EXPECT_EQ(s.cumulative, (std::vector<uint64_t>{2, 4, 5, 6}));  // le=0.1 includes 0.1
  EXPECT_EQ(s.count, 6u);
  EXPECT_DOUBLE_EQ(s.sum, 56.65);
}

TEST(HistogramTest, ConcurrentObservationsAreAllCounted) {
  Histogram h(LatencyBuckets());
  std::vector<std::jthread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h] {
      for (int i = 0; i < 10000; ++i) h.Observe(0.001 * (i % 100));
    });
  }
  threads.clear();
  EXPECT_EQ(h.Read().count, 40000u);
}

TEST(ExpositionTest, EscapesHelpAndLabelValues) {
  EXPECT_EQ(EscapeHelp("a\\b\nc\"d"), "a\\\\b\\nc\"d");
  EXPECT_EQ(EscapeLabelValue("a\\b\nc\"d"), "a\\\\b\\nc\\\"d");
}

TEST(ExpositionTest, FormatsValues) {
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(10), "10");
  EXPECT_EQ(FormatValue(1234567890123), "1234567890123");
  EXPECT_EQ(FormatValue(-20), "-20");
  EXPECT_EQ(FormatValue(0.25), "0.25");
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
}

TEST(RegistryTest, RendersEveryKindInTextFormat) {
  Registry r;
  auto& requests =
      r.AddCounter("zest_requests_total", "Requests.\nBy status", {"endpoint", "status"});
  requests.With({"/v1/chat", "200"}).Inc();
  requests.With({"/v1/chat", "200"}).Inc(2);
  requests.With({"/v1/chat", "4\"04"}).Inc();
  r.AddGauge("zest_up", "Up.").With({}).Set(1);
  auto& ttft = r.AddHistogram("zest_ttft_seconds", "TTFT.", {"model"}, {0.5, 1});
  ttft.With({"m"}).Observe(0.7);
  r.AddGaugeCallback("zest_models_loaded", "Loaded.", {}, [] {
    return std::vector<std::pair<LabelValues, double>>{{{}, 2}};
  });
  std::string text = r.Render();
  EXPECT_NE(text.find("# HELP zest_requests_total Requests.\\nBy status\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE zest_requests_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("zest_requests_total{endpoint=\"/v1/chat\",status=\"200\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("status=\"4\\\"04\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("zest_up 1\n"), std::string::npos);
  EXPECT_NE(text.find("zest_ttft_seconds_bucket{model=\"m\",le=\"0.5\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("zest_ttft_seconds_bucket{model=\"m\",le=\"1\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("zest_ttft_seconds_bucket{model=\"m\",le=\"+Inf\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("zest_ttft_seconds_sum{model=\"m\"} 0.7\n"), std::string::npos);
  EXPECT_NE(text.find("zest_ttft_seconds_count{model=\"m\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE zest_models_loaded gauge\nzest_models_loaded 2\n"),
            std::string::npos);
}

TEST(RegistryTest, CountersIgnoreNegativeIncrements) {
  Counter c;
  c.Inc(5);
  c.Inc(-3);
  EXPECT_EQ(c.value(), 5);
}

}  // namespace
}  // namespace zest::metrics
