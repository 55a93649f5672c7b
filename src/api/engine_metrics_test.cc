#include "api/engine_metrics.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

// Finds one sample's value in the exposition text; -1 when absent.
double Sample(const std::string& text, const std::string& series) {
  auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST(EngineMetricsTest, CountsARestartOnlyAfterACrash) {
  metrics::Registry registry;
  EngineMetrics m(registry);
  m.EngineReady("a", 1.5);
  m.EngineCrashed("a");
  m.EngineFailedToStart("a");
  m.EngineReady("a", 0.7);
  m.EngineReady("a", 0.7);  // a later load, e.g. after an unload: no restart
  m.EngineStopped("a", "unload");
  std::string text = registry.Render();
  EXPECT_EQ(Sample(text, R"(zest_engine_starts_total{model="a",result="ready"})"), 3);
  EXPECT_EQ(Sample(text, R"(zest_engine_starts_total{model="a",result="failed"})"), 1);
  EXPECT_EQ(Sample(text, R"(zest_engine_crashes_total{model="a"})"), 1);
  EXPECT_EQ(Sample(text, R"(zest_engine_restarts_total{model="a"})"), 1);
  EXPECT_EQ(Sample(text, R"(zest_evictions_total{model="a",reason="unload"})"), 1);
  EXPECT_EQ(Sample(text, R"(zest_model_load_duration_seconds_count{model="a"})"), 3);
  EXPECT_EQ(Sample(text, R"(zest_model_load_duration_seconds_bucket{model="a",le="1"})"), 2);
}

TEST(EngineMetricsTest, CountsAutoscaleDecisionsByDirection) {
  metrics::Registry registry;
  EngineMetrics m(registry);
  m.Autoscaled("a", "up");
  m.Autoscaled("a", "up");
  m.Autoscaled("a", "down");
  std::string text = registry.Render();
  EXPECT_EQ(Sample(text, R"(zest_autoscale_total{model="a",direction="up"})"), 2);
  EXPECT_EQ(Sample(text, R"(zest_autoscale_total{model="a",direction="down"})"), 1);
  EXPECT_EQ(Sample(text, R"(zest_autoscale_total{model="b",direction="up"})"), -1);
}

}  // namespace
}  // namespace zest::api
