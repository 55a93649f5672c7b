// The FIT verdicts of `zest list`: the policy's plan on a whole machine
// reduced to yes / partial / cpu / no, for real model shapes (sparse GGUF
// headers) on hand-built device lists, and the size-only estimate for
// catalog entries not downloaded.
#include "placement/fit.h"

#include <gtest/gtest.h>

#include <map>

#include "placement/memory_ledger.h"
#include "placement/policy.h"
#include "placement/test_models.h"

namespace zest::placement {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kMiB = 1ull << 20;

const models::ModelInfo& Model(const std::string& name) {
  static std::map<std::string, models::ModelInfo> cache;
  if (!cache.count(name)) {
    static const std::map<std::string, testing::ArchSpec> kSpecs = {
        {"llama3-8b", testing::Llama3_8B()}, {"gpt-oss-120b", testing::GptOss120B()}};
    cache[name] = testing::WriteSparseModel(kSpecs.at(name));
  }
  return cache.at(name);
}

PlacementDevice Cpu(uint64_t free) {
  PlacementDevice d;
  d.name = kCpuDevice;
  d.total_bytes = d.free_bytes = free;
  return d;
}

PlacementDevice Gpu(const std::string& name, uint64_t free, int speed_rank = 3) {
  PlacementDevice d;
  d.name = name;
  d.gpu = true;
  d.speed_rank = speed_rank;
  d.total_bytes = d.free_bytes = free;
  return d;
}

ModelFit FitOn(const std::string& model, const std::vector<PlacementDevice>& devices) {
  PlacementRequest request;
  request.model_name = model;
  Result<EnginePlan> plan = PlanPlacement(Model(model), devices, request);
  LoadShape shape;
  shape.parallel = request.default_parallel;
  uint64_t cpu_only = 0;
  for (const DeviceMemory& m : PredictMemory(Model(model), shape, Layout{})) cpu_only += m.Total();
  return FitOfPlan(plan, Model(model), devices, cpu_only);
}

TEST(FitTest, VerdictsFromThePlan) {
  struct Case {
    std::string name, model;
    std::vector<PlacementDevice> devices;
    std::string verdict;
  };
  const std::vector<Case> cases = {
      {"8B on a 24 GiB GPU: every layer there",
       "llama3-8b",
       {Cpu(30 * kGiB), Gpu("CUDA0", 24 * kGiB)},
       "yes"},
      {"8B on a 4 GiB GPU: split with the CPU",
       "llama3-8b",
       {Cpu(30 * kGiB), Gpu("CUDA0", 4 * kGiB)},
       "partial"},
      {"8B with a GPU too small for one layer",
       "llama3-8b",
       {Cpu(30 * kGiB), Gpu("CUDA0", 300 * kMiB)},
       "cpu"},
      {"8B on a GPU-less box", "llama3-8b", {Cpu(30 * kGiB)}, "yes"},
      {"8B beside llvmpipe only (never chosen by itself)",
       "llama3-8b",
       {Cpu(30 * kGiB), Gpu("Vulkan0", 24 * kGiB, 0)},
       "yes"},
      {"120B in 32 GiB", "gpt-oss-120b", {Cpu(32 * kGiB)}, "no"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ModelFit fit = FitOn(c.model, c.devices);
    EXPECT_EQ(fit.verdict, c.verdict) << fit.reason;
    EXPECT_GT(fit.needed_bytes, 0u);
  }
}

TEST(FitTest, NoSaysWhatIsNeededAndWhatThereIs) {
  ModelFit fit = FitOn("gpt-oss-120b", {Cpu(32 * kGiB), Gpu("Vulkan0", 16 * kGiB, 0)});
  EXPECT_EQ(fit.verdict, "no");
  EXPECT_EQ(fit.available_bytes, 32 * kGiB);  // llvmpipe is not counted
  EXPECT_GT(fit.needed_bytes, 60 * kGiB);     // ~60 GB of MXFP4 weights
  EXPECT_NE(fit.reason.find("does not fit"), std::string::npos) << fit.reason;
}

TEST(FitTest, AvailableCountsRamAndDiscreteGpusOnce) {
  PlacementDevice igpu = Gpu("Vulkan1", 8 * kGiB, 2);
  igpu.unified = true;  // its memory is the RAM's
  EXPECT_EQ(AvailableBytes({Cpu(32 * kGiB), Gpu("CUDA0", 24 * kGiB), igpu}), 56 * kGiB);
}

TEST(FitTest, CatalogEntriesByFileSize) {
  const std::vector<PlacementDevice> desktop = {Cpu(32 * kGiB), Gpu("CUDA0", 24 * kGiB)};
  EXPECT_EQ(FitOfSize(5 * kGiB, desktop).verdict, "yes");       // fits the GPU
  EXPECT_EQ(FitOfSize(30 * kGiB, desktop).verdict, "partial");  // GPU + RAM
  EXPECT_EQ(FitOfSize(60 * kGiB, desktop).verdict, "no");
  ModelFit big = FitOfSize(60 * kGiB, desktop);
  EXPECT_GT(big.needed_bytes, 60 * kGiB);
  EXPECT_EQ(big.available_bytes, 56 * kGiB);
  EXPECT_EQ(FitOfSize(20 * kGiB, {Cpu(32 * kGiB)}).verdict, "yes");
  EXPECT_EQ(FitOfSize(20 * kGiB, {Cpu(32 * kGiB), Gpu("CUDA0", 2 * kGiB)}).verdict, "partial");
  EXPECT_EQ(FitOfSize(20 * kGiB, {Cpu(32 * kGiB), Gpu("Vulkan0", 2 * kGiB, 0)}).verdict, "yes");
}

}  // namespace
}  // namespace zest::placement
