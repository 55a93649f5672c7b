#include "cli/top_view.h"

#include <gtest/gtest.h>

namespace zest::cli {
namespace {

using nlohmann::json;

TopInput Sample(int instances) {
  TopInput in;
  in.server = "http://127.0.0.1:9378";
  in.clock = "12:00:00";
  in.system = json::parse(R"({
    "cpu": {"model": "AMD Ryzen AI 9 HX 370 w/ Radeon 890M"},
    "gpus": [{"name": "AMD Radeon 890M", "vram_total_bytes": 4294967296, "gtt_total_bytes": 4294967296}],
    "npus": [{"name": "AMD XDNA2 NPU"}],
    "utilisation": {"cpu_percent": 50.0, "ram_used_bytes": 8589934592, "ram_total_bytes": 34359738368,
                    "gpus": [{"busy_percent": 97, "vram_used_bytes": 4294967296, "gtt_used_bytes": 0}],
                    "npus": [{"power_state": "suspended"}]}})");
  in.instances = json::array();
  json queues = json::array();
  for (int i = 0; i < instances; ++i) {
    std::string model = "a-model-with-a-rather-long-name-" + std::to_string(i);
    in.instances.push_back(
        {{"model", model}, {"state", "ready"}, {"pid", 1000 + i}, {"uptime_s", 75.0}});
    queues.push_back({{"model", model},
                      {"slots", 4},
                      {"busy", 4},
                      {"waiting", {{"high", 1}, {"normal", 7}, {"low", 2}}}});
  }
  in.stats = {{"model", "x"},       {"time_to_first_token", 0.25}, {"tokens_per_second", 42.0},
              {"input_tokens", 20}, {"cached_tokens", 3},          {"output_tokens", 8},
              {"queues", queues},   {"totals", {{"requests", 12}}}};
  in.tokens_per_second = 12.5;
  return in;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(TopViewTest, ShowsDevicesQueuesAndThroughput) {
  std::string frame = Joined(RenderTop(Sample(1), 80, 24));
  EXPECT_NE(frame.find("cpu   AMD Ryzen AI 9 [#####.....]  50%"), std::string::npos) << frame;
  EXPECT_NE(frame.find("gpu0  AMD Radeon 890 [##########]  97%  [#####.....] 4.0 GB/8.0 GB"),
            std::string::npos)
      << frame;
  EXPECT_NE(frame.find("npu0  AMD XDNA2 NPU  suspended"), std::string::npos) << frame;
  EXPECT_NE(frame.find("ready     1000   1m15s    4/4  1/7/2"), std::string::npos) << frame;
  EXPECT_NE(frame.find("12.5 tok/s generated, 12 requests"), std::string::npos) << frame;
  EXPECT_NE(frame.find("TTFT 0.250 s, 42.0 tok/s, 20 in (3 cached) / 8 out"), std::string::npos)
      << frame;
}

TEST(TopViewTest, ShowsHowMuchOfEachDraftWasAccepted) {
  TopInput in = Sample(1);
  EXPECT_EQ(Joined(RenderTop(in, 120, 24)).find("DRAFTS"), std::string::npos);
  in.stats["speculative"] = json::array(
      {{{"model", "t"}, {"drafted_tokens", 400}, {"accepted_tokens", 300}, {"acceptance", 0.75}},
       {{"model", "u"},
        {"drafted_tokens", 300},
        {"accepted_tokens", 3},
        {"acceptance", 0.01},
        {"switched_off", {{"draft", "d"}, {"acceptance", 0.01}, {"drafted_tokens", 300}}}}});
  std::string frame = Joined(RenderTop(in, 120, 24));
  EXPECT_NE(frame.find("DRAFTS     t: 0.75 of 400 drafted accepted; u: switched off (0.01 "
                       "accepted)"),
            std::string::npos)
      << frame;
}

TEST(TopViewTest, FitsTheTerminalWithManyModels) {
  std::vector<std::string> lines = RenderTop(Sample(40), 80, 24);
  EXPECT_LE(lines.size(), 24u);
  for (const auto& l : lines) EXPECT_LE(l.size(), 80u) << l;
  EXPECT_NE(Joined(lines).find("more"), std::string::npos);
  EXPECT_NE(Joined(lines).find("THROUGHPUT"), std::string::npos);  // the footer survives
}

TEST(TopViewTest, Bars) {
  EXPECT_EQ(Bar(0, 4), "[....]");
  EXPECT_EQ(Bar(0.5, 4), "[##..]");
  EXPECT_EQ(Bar(2, 4), "[####]");
  EXPECT_EQ(Bar(-1, 4), "[....]");
}

}  // namespace
}  // namespace zest::cli
