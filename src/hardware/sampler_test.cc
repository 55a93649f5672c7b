#include "hardware/sampler.h"

#include <gtest/gtest.h>

#include <thread>

#include "hardware/test_fixtures.h"

namespace zest::hardware {
namespace {

TEST(ProcStatTest, BusyExcludesIdleAndIowait) {
  auto t = ParseProcStat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->total, 1000u);
  EXPECT_EQ(t->busy, 150u);
  EXPECT_FALSE(ParseProcStat("intr 1 2 3").has_value());
}

TEST(ProcStatTest, PercentFromDeltas) {
  EXPECT_DOUBLE_EQ(*CpuPercent({150, 1000}, {400, 1500}), 50.0);
  EXPECT_FALSE(CpuPercent({150, 1000}, {150, 1000}).has_value());
}

Utilisation WaitForSamples(const UtilisationSampler& sampler, uint64_t n) {
  for (int i = 0; i < 5000; ++i) {
    Utilisation u = sampler.Snapshot();
    if (u.samples >= n) return u;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ADD_FAILURE() << "sampler took no sample " << n;
  return sampler.Snapshot();
}

TEST(SamplerTest, SamplesChangingFixtureFiles) {
  FixtureCopy fixture("ryzen-ai-300-laptop");
  Inventory inv = Discover(fixture.roots());
  UtilisationSampler sampler(fixture.roots(), inv, std::chrono::milliseconds(2));
  sampler.Start();
  Utilisation first = WaitForSamples(sampler, 1);
  EXPECT_EQ(first.ram_total_bytes, inv.memory.total_bytes);
  EXPECT_EQ(first.ram_used_bytes, inv.memory.total_bytes - inv.memory.available_bytes);
  ASSERT_EQ(first.gpus.size(), 1u);
  EXPECT_EQ(first.gpus[0].busy_percent, 3);
  ASSERT_EQ(first.npus.size(), 1u);
  EXPECT_EQ(first.npus[0].power_state, "suspended");

  // The CPU and the GPU get busier.
  fixture.Write("proc/stat", "cpu  1750 0 500 8250 100 0 20 0 0 0\n");
  fixture.Write("sys/devices/pci0000:00/0000:c5:00.0/gpu_busy_percent", "87\n");
  fixture.Write("sys/devices/pci0000:00/0000:c5:00.0/mem_info_gtt_used", "1073741824\n");
  // Sample s+1 may have started before the writes; s+2 starts after them.
  Utilisation later = WaitForSamples(sampler, sampler.Snapshot().samples + 2);
  sampler.Stop();
  EXPECT_EQ(later.gpus[0].busy_percent, 87);
  EXPECT_EQ(later.gpus[0].gtt_used_bytes, 1073741824u);
}

TEST(SamplerTest, CpuPercentBetweenTwoSamples) {
  FixtureCopy fixture("strix-halo-128g");
  UtilisationSampler sampler(fixture.roots(), Discover(fixture.roots()));
  sampler.SampleNow();
  EXPECT_FALSE(sampler.Snapshot().cpu_percent.has_value());
  fixture.Write("proc/stat", "cpu  1750 0 500 8250 100 0 20 0 0 0\n");
  sampler.SampleNow();
  ASSERT_TRUE(sampler.Snapshot().cpu_percent.has_value());
  EXPECT_DOUBLE_EQ(*sampler.Snapshot().cpu_percent, 75.0);
  EXPECT_EQ(sampler.Snapshot().samples, 2u);
}

TEST(SamplerTest, StopsPromptlyWithALongInterval) {
  UtilisationSampler sampler(FixtureRoots("rtx-4090-desktop"),
                             Discover(FixtureRoots("rtx-4090-desktop")), std::chrono::hours(1));
  sampler.Start();
  WaitForSamples(sampler, 1);
  sampler.Stop();  // would hang for an hour if the stop token did not wake the wait
  EXPECT_EQ(sampler.Snapshot().samples, 1u);
}

TEST(SamplerTest, RealMachine) {
  UtilisationSampler sampler(SystemRoots{}, Discover(SystemRoots{}));
  sampler.SampleNow();
  sampler.SampleNow();
  Utilisation u = sampler.Snapshot();
  EXPECT_GT(u.ram_total_bytes, 0u);
  EXPECT_GT(u.ram_used_bytes, 0u);
}

}  // namespace
}  // namespace zest::hardware
