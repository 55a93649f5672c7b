// The learned memory correction: the smoothing and clamping by hand, and
// the store against real files in a temporary directory.
#include "placement/memory_correction.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "core/testing/temp_dir.h"

namespace zest::placement {
namespace {

namespace fs = std::filesystem;

using zest::testing::TempDir;

std::string Read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MemoryCorrectionTest, FirstLoadTakenAsItIsThenSmoothed) {
  MemoryCorrection first = FoldMeasurement(std::nullopt, 1000, 1200);
  EXPECT_DOUBLE_EQ(first.ratio, 1.2);
  EXPECT_EQ(first.loads, 1);
  // 1.2 + 0.3 × (1.0 - 1.2) = 1.14.
  MemoryCorrection second = FoldMeasurement(first, 1000, 1000);
  EXPECT_DOUBLE_EQ(second.ratio, 1.14);
  EXPECT_EQ(second.loads, 2);
  // Nothing predicted: nothing to learn from.
  EXPECT_EQ(FoldMeasurement(second, 0, 5000), second);
}

TEST(MemoryCorrectionTest, ClampedToHalfAndDouble) {
  EXPECT_DOUBLE_EQ(FoldMeasurement(std::nullopt, 1000, 9000).ratio, 2.0);
  EXPECT_DOUBLE_EQ(FoldMeasurement(std::nullopt, 1000, 100).ratio, 0.5);
  // A wild reading is clamped before it is folded in: 1.0 + 0.3 × (2.0 - 1.0).
  EXPECT_DOUBLE_EQ(FoldMeasurement(MemoryCorrection{1.0, 3}, 1000, 50'000).ratio, 1.3);
}

TEST(MemoryCorrectionTest, OnlyEverRaisesThePrediction) {
  EXPECT_DOUBLE_EQ((MemoryCorrection{1.25, 2}.Factor()), 1.25);
  EXPECT_DOUBLE_EQ((MemoryCorrection{0.7, 2}.Factor()), 1.0);
}

constexpr auto kCpu = CorrectionScope::kCpuOnly;
constexpr auto kGpu = CorrectionScope::kWithGpus;

TEST(MemoryCorrectionTest, PersistsPerModelFileAndScope) {
  TempDir dir("correction");
  const fs::path file = dir.path() / "memory_corrections.json";
  const std::string a = ModelFileIdentity("/m/a.gguf", 100, 7);
  {
    MemoryCorrections store(file);
    EXPECT_FALSE(store.Get("a", a, kCpu).has_value());
    auto learned = store.Record("a", a, kCpu, 1000, 1500);
    ASSERT_TRUE(learned.ok()) << learned.status().message();
    EXPECT_DOUBLE_EQ(learned->ratio, 1.5);
    // Learned on the CPU: says nothing about the model with GPU layers.
    EXPECT_FALSE(store.Get("a", a, kGpu).has_value());
    ASSERT_TRUE(store.Record("a", a, kGpu, 100, 190).ok());
  }
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(Read(file).find("\"/m/a.gguf|100|7\""), std::string::npos) << Read(file);

  MemoryCorrections reopened(file);
  EXPECT_EQ(reopened.Get("a", a, kCpu), (MemoryCorrection{1.5, 1}));
  EXPECT_EQ(reopened.Get("a", a, kGpu), (MemoryCorrection{1.9, 1}));
  // Another file under the same name (re-pulled): nothing known, and what
  // it measures starts afresh instead of blending with the old file's.
  const std::string a2 = ModelFileIdentity("/m/a.gguf", 101, 8);
  EXPECT_FALSE(reopened.Get("a", a2, kCpu).has_value());
  auto fresh = reopened.Record("a", a2, kCpu, 1000, 1100);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(*fresh, (MemoryCorrection{1.1, 1}));
  EXPECT_FALSE(reopened.Get("a", a, kCpu).has_value());
  EXPECT_FALSE(reopened.Get("a", a2, kGpu).has_value());  // the old file's GPU ratio went too
}

TEST(MemoryCorrectionTest, BadFileIsIgnoredAndRewritten) {
  TempDir dir("correction");
  const fs::path file = dir.path() / "memory_corrections.json";
  std::ofstream(file) << "{ not json";
  MemoryCorrections store(file);
  EXPECT_FALSE(store.Get("a", "x", kCpu).has_value());
  ASSERT_TRUE(store.Record("a", "x", kCpu, 100, 150).ok());
  EXPECT_EQ(MemoryCorrections(file).Get("a", "x", kCpu), (MemoryCorrection{1.5, 1}));
  // A hand-edited ratio is clamped on the way in; a malformed entry skipped.
  std::ofstream(file) << R"({"version": 1, "models": {
      "a": {"file": "x", "cpu_only": {"ratio": 40, "loads": 2}},
      "b": {"file": "y", "cpu_only": {"ratio": "big", "loads": 1}}}})";
  MemoryCorrections edited(file);
  EXPECT_EQ(edited.Get("a", "x", kCpu), (MemoryCorrection{2.0, 2}));
  EXPECT_FALSE(edited.Get("b", "y", kCpu).has_value());
}

TEST(MemoryCorrectionTest, UnwritableFileIsAnErrorButKeepsTheValue) {
  MemoryCorrections store("/proc/zest-no-such-dir/memory_corrections.json");
  auto r = store.Record("a", "x", kCpu, 100, 120);
  EXPECT_FALSE(r.ok());
  ASSERT_TRUE(store.Get("a", "x", kCpu).has_value());
  EXPECT_DOUBLE_EQ(store.Get("a", "x", kCpu)->ratio, 1.2);
}

}  // namespace
}  // namespace zest::placement
