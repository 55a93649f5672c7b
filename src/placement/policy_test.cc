// Placement decisions, table-driven over real model shapes (sparse GGUF
// headers) and the FAKE machines in tests/fixtures/hardware plus hand-built
// device lists for GPUs no fixture has.
#include "placement/policy.h"

#include <gtest/gtest.h>

#include <map>

#include "hardware/test_fixtures.h"
#include "placement/test_models.h"

// Table rows leave trailing expectations at their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace zest::placement {
namespace {

// Devices as an engine's probe reports them (engines/ reads the memory and
// llvmpipe out of the engine's own words; here they are given).
using Devices = std::vector<hardware::EngineDevice>;
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kMiB = 1ull << 20;

const models::ModelInfo& Model(const std::string& name) {
  static std::map<std::string, models::ModelInfo> cache;
  if (!cache.count(name)) {
    static const std::map<std::string, testing::ArchSpec> kSpecs = {
        {"llama3-8b", testing::Llama3_8B()},
        {"qwen3-30b-a3b", testing::Qwen3_30B_A3B()},
        {"gpt-oss-120b", testing::GptOss120B()},
        {"gemma3-12b", testing::Gemma3_12B()}};
    cache[name] = testing::WriteSparseModel(kSpecs.at(name));
  }
  return cache.at(name);
}

std::vector<PlacementDevice> Machine(const std::string& fixture, const Devices& engine,
                                     uint64_t memory_limit = 0) {
  hardware::Inventory inventory;
  if (fixture.empty()) {  // a GPU-less box with 64 GiB, 60 free
    inventory.memory.total_bytes = 64 * kGiB;
    inventory.memory.available_bytes = 60 * kGiB;
  } else {
    inventory = hardware::Discover(hardware::FixtureRoots(fixture), {false});
  }
  return DevicesFromInventory(inventory, engine, memory_limit);
}

const Devices kStrixHalo = {{"Vulkan0", "Radeon 8060S Graphics (RADV GFX1151)"}};
const Devices kLaptop = {{"Vulkan0", "AMD Radeon 890M Graphics (RADV GFX1150)"}};
const Devices kXtx = {{"Vulkan0", "AMD Radeon RX 7900 XTX (RADV NAVI31)"},
                      {"Vulkan1", "AMD Radeon Graphics (RADV RAPHAEL_MENDOCINO)"}};
const Devices kRtx4090 = {
    {"CUDA0", "NVIDIA GeForce RTX 4090 (24563 MiB, 23000 MiB free)", 24563 * kMiB, 23000 * kMiB}};
const Devices kLlvmpipe = {{"Vulkan0",
                            "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)",
                            24105 * kMiB, 24105 * kMiB, /*software=*/true}};
const Devices kSmallGpu = {
    {"CUDA0", "FAKE 4 GiB card (4096 MiB, 4096 MiB free)", 4096 * kMiB, 4096 * kMiB}};
const Devices kTwoSmallGpus = {
    {"CUDA0", "FAKE 6 GiB card (6144 MiB, 6144 MiB free)", 6144 * kMiB, 6144 * kMiB},
    {"CUDA1", "FAKE 6 GiB card (6144 MiB, 6144 MiB free)", 6144 * kMiB, 6144 * kMiB}};

struct Case {
  std::string name;
  std::string model;
  std::string fixture;
  Devices engine;
  config::ModelSettings options;
  uint64_t default_ctx = 4096;
  // Expected outcome: the devices (empty = CPU only) and -ngl, or an error.
  std::vector<std::string> gpu_devices;
  int n_gpu_layers = 0;
  uint64_t ctx = 4096;
  ErrorCode error = ErrorCode::kOk;
  std::string message;               // substring of the error or the explanation
  std::vector<double> tensor_split;  // expected in the plan (empty: not checked)
};

config::ModelSettings Options(const std::function<void(config::ModelSettings&)>& set) {
  config::ModelSettings o;
  set(o);
  return o;
}

std::vector<Case> Cases() {
  return {
      {"llama 8B fully on the 7900 XTX, not the iGPU",
       "llama3-8b",
       "radeon-7900xtx-desktop",
       kXtx,
       {},
       4096,
       {"Vulkan0"},
       33,
       4096,
       ErrorCode::kOk,
       "all 33 layers on Vulkan0"},
      {"llama 8B fully on the RTX 4090 (memory from the engine)",
       "llama3-8b",
       "rtx-4090-desktop",
       kRtx4090,
       {},
       4096,
       {"CUDA0"},
       33},
      {"gpt-oss-120b fully on the Strix Halo's unified memory",
       "gpt-oss-120b",
       "strix-halo-128g",
       kStrixHalo,
       {},
       4096,
       {"Vulkan0"},
       37,
       4096,
       ErrorCode::kOk,
       "all 37 layers on Vulkan0"},
      {"gpt-oss-120b refused on a 32 GB laptop",
       "gpt-oss-120b",
       "ryzen-ai-300-laptop",
       kLaptop,
       {},
       4096,
       {},
       0,
       4096,
       ErrorCode::kInsufficientMemory,
       // 64,109,687,040 weights + KV (18 full layers × 16384 cells + 18 windowed × 4 × 640)
       // × 2048 bytes = 698,351,616 + compute 4 × 512 × (2880 + 201088) + 92 MiB (an engine with a
       // GPU backend).
       "needs 60.8 GiB (weights 59.7 GiB, KV cache 666 MiB, compute 398 MiB, engine 92 MiB) for a "
       "context of 4096 tokens × 4 slots; available: CPU 20.0 GiB free of 31.3 GiB, Vulkan0"},
      {"llama 8B on the laptop iGPU (GTT)",
       "llama3-8b",
       "ryzen-ai-300-laptop",
       kLaptop,
       {},
       4096,
       {"Vulkan0"},
       33},
      {"device = cpu keeps it off the GPU",
       "llama3-8b",
       "radeon-7900xtx-desktop",
       kXtx,
       Options([](auto& o) { o.device = "cpu"; }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kOk,
       "all layers on the CPU"},
      {"unknown device",
       "llama3-8b",
       "radeon-7900xtx-desktop",
       kXtx,
       Options([](auto& o) { o.device = "Vulkan9"; }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "device 'Vulkan9' is not one the engine sees (cpu, Vulkan0, Vulkan1)"},
      {"llvmpipe only when named", "llama3-8b", "", kLlvmpipe, {}, 4096, {}, 0},
      {"llvmpipe named",
       "llama3-8b",
       "",
       kLlvmpipe,
       Options([](auto& o) { o.device = "Vulkan0"; }),
       4096,
       {"Vulkan0"},
       33},
      {"explicit n_gpu_layers",
       "llama3-8b",
       "radeon-7900xtx-desktop",
       kXtx,
       Options([](auto& o) { o.n_gpu_layers = 10; }),
       4096,
       {"Vulkan0"},
       10},
      {"n_gpu_layers above the model's layers",
       "llama3-8b",
       "radeon-7900xtx-desktop",
       kXtx,
       Options([](auto& o) { o.n_gpu_layers = 40; }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "above its 33 layers"},
      {"ctx_size above the trained length is an error, not a cap",
       "llama3-8b",
       "",
       {},
       Options([](auto& o) { o.ctx_size = 16384; }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "above its trained context of 8192"},
      {"the server default is capped at the trained length",
       "llama3-8b",
       "",
       {},
       {},
       65536,
       {},
       0,
       8192,
       ErrorCode::kOk,
       "capped at the trained length"},
      {"quantized KV cache",
       "llama3-8b",
       "",
       {},
       Options([](auto& o) { o.kv_type = "q4_0"; }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kOk,
       "KV cache q4_0"},
      {"two small GPUs split the layers",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       {},
       4096,
       {"CUDA0", "CUDA1"},
       33,
       4096,
       ErrorCode::kOk,
       "all 33 layers on CUDA0 + CUDA1",
       {6144, 6144}},
      {"K and V cache types apart",
       "llama3-8b",
       "",
       {},
       Options([](auto& o) {
         o.kv_type = "q8_0";
         o.cache_type_v = "q4_0";
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kOk,
       "KV cache K q8_0, V q4_0"},
      {"a quantized V cache needs flash attention",
       "llama3-8b",
       "",
       {},
       Options([](auto& o) {
         o.kv_type = "q8_0";
         o.flash_attention = false;
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "kv_type q8_0 for 'llama3-8b' needs flash attention"},
      {"a quantized K cache alone does not",
       "llama3-8b",
       "",
       {},
       Options([](auto& o) {
         o.cache_type_k = "q4_0";
         o.flash_attention = false;
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kOk,
       "KV cache K q4_0, V f16"},
      // tensor_split: the user's proportions over the GPUs, in device order.
      {"tensor_split replaces the free-memory proportions",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       Options([](auto& o) {
         o.tensor_split = {1.2, 1};
       }),
       4096,
       {"CUDA0", "CUDA1"},
       33,
       4096,
       ErrorCode::kOk,
       "all 33 layers on CUDA0 + CUDA1 (split 1.2:1 as configured)",
       {1.2, 1}},
      {"tensor_split with too many weights",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       Options([](auto& o) {
         o.tensor_split = {1, 1, 1};
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "tensor_split has 3 weights but 'llama3-8b' is placed on 2 GPUs (CUDA0, CUDA1): give one "
       "weight per GPU, in that order"},
      {"tensor_split with a device named",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       Options([](auto& o) {
         o.device = "CUDA1";
         o.tensor_split = {1, 1};
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "tensor_split has 2 weights but 'llama3-8b' is placed on 1 GPU (CUDA1)"},
      {"tensor_split on the CPU",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       Options([](auto& o) {
         o.device = "cpu";
         o.tensor_split = {1, 1};
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInvalidArgument,
       "is placed on no GPU (device = cpu)"},
      {"tensor_split that puts everything on one small GPU does not fit",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       Options([](auto& o) {
         o.tensor_split = {0, 1};
       }),
       4096,
       {},
       0,
       4096,
       ErrorCode::kInsufficientMemory,
       "does not fit"},
      {"tensor_split with n_gpu_layers: the rest on the CPU",
       "llama3-8b",
       "",
       kTwoSmallGpus,
       Options([](auto& o) {
         o.tensor_split = {1, 3};
         o.n_gpu_layers = 21;
       }),
       4096,
       {"CUDA0", "CUDA1"},
       21,
       4096,
       ErrorCode::kOk,
       "the rest on the CPU (split 1:3 as configured)",
       {1, 3}},
  };
}

class PolicyTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(PolicyTableTest, Decides) {
  const Case& c = GetParam();
  PlacementRequest request{c.model, c.options, c.default_ctx, 4, 0};
  auto devices = Machine(c.fixture, c.engine);
  auto plan = PlanPlacement(Model(c.model), devices, request);
  if (c.error != ErrorCode::kOk) {
    ASSERT_FALSE(plan.ok()) << plan->explanation;
    EXPECT_EQ(plan.status().code(), c.error);
    EXPECT_NE(plan.status().message().find(c.message), std::string::npos)
        << plan.status().message();
    return;
  }
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->gpu_devices, c.gpu_devices) << plan->explanation;
  EXPECT_EQ(plan->n_gpu_layers, c.n_gpu_layers) << plan->explanation;
  EXPECT_EQ(plan->ctx_per_slot, c.ctx) << plan->explanation;
  EXPECT_NE(plan->explanation.find(c.message), std::string::npos) << plan->explanation;
  if (!c.tensor_split.empty()) {
    EXPECT_EQ(plan->tensor_split, c.tensor_split);
  }
  // Whatever was chosen fits: each device within its free memory.
  for (const DeviceUse& use : plan->memory) {
    for (const PlacementDevice& d : devices) {
      if (d.name == use.device) {
        EXPECT_LE(use.memory.Total(), d.free_bytes) << d.name;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Placement, PolicyTableTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name;
                           for (char ch : info.param.name) name += std::isalnum(ch) ? ch : '_';
                           return name;
                         });

// Qwen3-30B-A3B in Q8_0 (32.5 GB) on a 24 GB card: the dense parts on the
// GPU, the experts of as few blocks as needed on the CPU.
TEST(PolicyTest, MoeKeepsFewestExpertsOnCpu) {
  auto devices = Machine("rtx-4090-desktop", kRtx4090);
  PlacementRequest request{"qwen3", {}, 4096, 4, 0};
  auto plan = PlanPlacement(Model("qwen3-30b-a3b"), devices, request);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->n_gpu_layers, 49);
  EXPECT_GT(plan->n_cpu_moe, 0);
  EXPECT_LT(plan->n_cpu_moe, 48);
  LoadShape shape;
  shape.parallel = 4;
  auto fewer = PredictMemory(Model("qwen3-30b-a3b"), shape, {1, 49, {}, plan->n_cpu_moe - 1});
  EXPECT_GT(fewer[1].Total(), devices[1].free_bytes);  // one block less would not fit
  EXPECT_LE(plan->BytesOn("CUDA0"), devices[1].free_bytes);
}

// A dense model too big for a 4 GiB card: the most layers that fit.
TEST(PolicyTest, PartialOffloadTakesMostLayersThatFit) {
  auto devices = Machine("", kSmallGpu);
  auto plan = PlanPlacement(Model("llama3-8b"), devices, {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->gpu_devices, std::vector<std::string>{"CUDA0"});
  EXPECT_GT(plan->n_gpu_layers, 0);
  EXPECT_LT(plan->n_gpu_layers, 33);
  LoadShape shape;
  shape.parallel = 4;
  auto more = PredictMemory(Model("llama3-8b"), shape, {1, plan->n_gpu_layers + 1, {}, 0});
  EXPECT_GT(more[1].Total(), devices[1].free_bytes);
  EXPECT_NE(plan->explanation.find("the rest on the CPU"), std::string::npos);
}

// The engine's host-RAM prompt cache (llama-server's --cache-ram): its
// ceiling (cache_ram_mib) unset is four KV caches within a quarter of the
// RAM the model leaves and llama-server's own 8 GiB, set is as asked, and
// must fit when the fit is decided; the ledger holds none of it at load
// (it holds what the cache holds as conversations come: prompt_cache.h).
TEST(PolicyTest, PromptCacheIsSizedAndCounted) {
  auto plan = PlanPlacement(Model("llama3-8b"), Machine("", {}), {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const DeviceMemory& cpu = plan->memory[0].memory;
  EXPECT_GT(cpu.kv_cache, 0u);
  ASSERT_TRUE(plan->cache_ram_mib.has_value());
  EXPECT_EQ(*plan->cache_ram_mib * kMiB,
            std::min(kPromptCacheKvMultiple * cpu.kv_cache, kMaxPromptCacheBytes) / kMiB * kMiB);
  EXPECT_EQ(cpu.prompt_cache, 0u) << "nothing held at load";
  EXPECT_EQ(cpu.Total(), cpu.AtLoad());
  EXPECT_NE(plan->explanation.find("prompt cache of up to"), std::string::npos)
      << plan->explanation;

  // With 1 GiB left after the model, a quarter of it.
  const uint64_t at_load = cpu.AtLoad();
  auto tight =
      PlanPlacement(Model("llama3-8b"), Machine("", {}, at_load + kGiB), {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(tight.ok()) << tight.status().message();
  EXPECT_EQ(*tight->cache_ram_mib * kMiB, kGiB / 4);

  // Asked for: given as it is, and a cache that leaves no room is refused.
  config::ModelSettings o;
  o.cache_ram = 100;
  auto asked = PlanPlacement(Model("llama3-8b"), Machine("", {}), {"llama", o, 4096, 4, 0});
  ASSERT_TRUE(asked.ok()) << asked.status().message();
  EXPECT_EQ(*asked->cache_ram_mib, 100u);
  EXPECT_EQ(asked->memory[0].memory.prompt_cache, 0u);
  o.cache_ram = 2048;
  auto too_big =
      PlanPlacement(Model("llama3-8b"), Machine("", {}, at_load + kGiB), {"llama", o, 4096, 4, 0});
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(too_big.status().message().find("prompt cache 2.0 GiB"), std::string::npos)
      << too_big.status().message();
}

// Without a context asked for, the largest that fits up to the trained one.
TEST(PolicyTest, AutoContextIsTheLargestThatFits) {
  auto devices = Machine("radeon-7900xtx-desktop", kXtx);
  auto plan = PlanPlacement(Model("gemma3-12b"), devices, {"gemma", {}, 0, 2, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->gpu_devices, std::vector<std::string>{"Vulkan0"});
  EXPECT_GT(plan->ctx_per_slot, 4096u);
  EXPECT_LT(plan->ctx_per_slot, 131072u);
  LoadShape shape;
  shape.parallel = 2;
  shape.ctx_per_slot = plan->ctx_per_slot + 256;
  EXPECT_GT(PredictMemory(Model("gemma3-12b"), shape, {1, 49, {}, 0})[1].Total(),
            devices[1].free_bytes);
  EXPECT_NE(plan->explanation.find("the largest that fits"), std::string::npos);
  // On the 128 GB Strix Halo gpt-oss-120b gets its whole trained context.
  auto strix = PlanPlacement(Model("gpt-oss-120b"), Machine("strix-halo-128g", kStrixHalo),
                             {"gpt-oss", {}, 0, 4, 0});
  ASSERT_TRUE(strix.ok()) << strix.status().message();
  EXPECT_EQ(strix->ctx_per_slot, 131072u);
}

// The ledger deals the layers by the user's split: the plan's per-device
// prediction is the ledger's for those weights, and the weights follow the
// engine's device order even when the faster GPU comes second.
TEST(PolicyTest, UserTensorSplitDrivesThePrediction) {
  const Devices reversed = {{"Vulkan0", "AMD Radeon Graphics (RADV RAPHAEL_MENDOCINO)"},
                            {"Vulkan1", "AMD Radeon RX 7900 XTX (RADV NAVI31)"}};
  auto devices = Machine("radeon-7900xtx-desktop", reversed);
  config::ModelSettings o;
  o.tensor_split = {1, 3};
  auto plan = PlanPlacement(Model("llama3-8b"), devices, {"llama", o, 4096, 4, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->gpu_devices, (std::vector<std::string>{"Vulkan0", "Vulkan1"}));
  EXPECT_EQ(plan->tensor_split, (std::vector<double>{1, 3}));
  LoadShape shape;
  shape.parallel = 4;
  auto expected = PredictMemory(Model("llama3-8b"), shape, {2, 33, {1, 3}, 0});
  ASSERT_EQ(plan->memory.size(), 3u);
  EXPECT_EQ(plan->memory[1].device, "Vulkan0");
  // 8 of 32 blocks on Vulkan0, 24 and the head on Vulkan1.
  EXPECT_EQ(plan->memory[1].memory.weights, 8 * 231'768'064ull);
  EXPECT_EQ(plan->memory[1].memory.weights, expected[1].weights);
  EXPECT_EQ(plan->memory[2].memory.weights, 24 * 231'768'064ull + 558'186'496u);
  EXPECT_EQ(plan->memory[2].memory.kv_cache, expected[2].kv_cache);
  EXPECT_EQ(plan->memory[2].memory.kv_cache, 3 * plan->memory[1].memory.kv_cache);
}

// A correction learned from earlier loads scales the CPU prediction up
// (never down), counts for admission, and shows in the plan.
TEST(PolicyTest, LearnedCorrectionRaisesTheCpuPrediction) {
  auto devices = Machine("", {});  // 60 GiB free
  PlacementRequest request{"llama", {}, 4096, 4, 0};
  auto plain = PlanPlacement(Model("llama3-8b"), devices, request);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  // Learned against what a load takes (the prompt cache starts empty).
  const uint64_t base = plain->memory[0].memory.AtLoad();
  const uint64_t plain_total = plain->BytesOn(kCpuDevice);
  EXPECT_EQ(plain->memory[0].memory.learned, 0u);
  EXPECT_FALSE(plain->memory_correction.has_value());

  request.learned.cpu_only = MemoryCorrection{1.25, 3};
  auto corrected = PlanPlacement(Model("llama3-8b"), devices, request);
  ASSERT_TRUE(corrected.ok()) << corrected.status().message();
  EXPECT_EQ(corrected->memory[0].memory.learned, base / 4);
  EXPECT_EQ(corrected->BytesOn(kCpuDevice), plain_total + base / 4);
  EXPECT_EQ(corrected->memory_correction, (MemoryCorrection{1.25, 3}));
  EXPECT_NE(corrected->explanation.find("learned from past loads"), std::string::npos)
      << corrected->explanation;

  // Below 1: recorded in the plan, the prediction left as it was.
  request.learned.cpu_only = MemoryCorrection{0.6, 2};
  auto lower = PlanPlacement(Model("llama3-8b"), devices, request);
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(lower->BytesOn(kCpuDevice), plain_total);

  // Admission counts it: a machine that holds the plain prediction but not
  // ×2 of it refuses, and the message says what was learned.
  auto tight = Machine("", {}, base + base / 2);
  ASSERT_TRUE(PlanPlacement(Model("llama3-8b"), tight, {"llama", {}, 4096, 4, 0}).ok());
  request.learned.cpu_only = MemoryCorrection{2.0, 5};
  auto refused = PlanPlacement(Model("llama3-8b"), tight, request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(refused.status().message().find("learned from past loads"), std::string::npos)
      << refused.status().message();
}

// A ratio learned with GPU layers scales only layouts with GPU layers, and
// one learned on the CPU only CPU layouts: on a 4 GiB card llama 8B is
// partly offloaded; forced to the CPU it takes the CPU ratio.
TEST(PolicyTest, LearnedCorrectionByScope) {
  auto devices = Machine("", kSmallGpu);
  PlacementRequest request{"llama", {}, 4096, 4, 0};
  request.learned.cpu_only = MemoryCorrection{1.5, 1};
  auto gpu = PlanPlacement(Model("llama3-8b"), devices, request);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  ASSERT_FALSE(gpu->gpu_devices.empty());
  EXPECT_EQ(gpu->memory[0].memory.learned, 0u);
  EXPECT_FALSE(gpu->memory_correction.has_value());

  request.learned.with_gpus = MemoryCorrection{1.1, 4};
  auto both = PlanPlacement(Model("llama3-8b"), devices, request);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->memory_correction, (MemoryCorrection{1.1, 4}));
  const DeviceMemory& cpu = both->memory[0].memory;
  const double ledger = static_cast<double>(cpu.AtLoad());
  EXPECT_EQ(cpu.learned, static_cast<uint64_t>(ledger * (1.1 - 1.0)));
  EXPECT_GT(cpu.learned, 0u);
  EXPECT_EQ(both->memory[1].memory.learned, 0u);  // the GPU's own memory is not corrected
  EXPECT_EQ(both->correction_scope, CorrectionScope::kWithGpus);

  request.options.device = "cpu";
  auto cpu_only = PlanPlacement(Model("llama3-8b"), devices, request);
  ASSERT_TRUE(cpu_only.ok());
  EXPECT_EQ(cpu_only->memory_correction, (MemoryCorrection{1.5, 1}));
  EXPECT_EQ(cpu_only->correction_scope, CorrectionScope::kCpuOnly);
}

TEST(PolicyTest, APlanOnASoftwareRendererSaysSo) {
  // llvmpipe computes with CPU threads: the CPU thread budget must know.
  config::ModelSettings on_vulkan0;
  on_vulkan0.device = "Vulkan0";
  PlacementRequest request{"m", on_vulkan0, 4096, 4, 0};
  auto llvmpipe = PlanPlacement(Model("llama3-8b"), Machine("", kLlvmpipe), request);
  ASSERT_TRUE(llvmpipe.ok()) << llvmpipe.status().message();
  EXPECT_TRUE(llvmpipe->software_gpu);
  auto radeon = PlanPlacement(Model("llama3-8b"), Machine("radeon-7900xtx-desktop", kXtx), request);
  ASSERT_TRUE(radeon.ok()) << radeon.status().message();
  EXPECT_FALSE(radeon->software_gpu);
}

TEST(PolicyTest, QuantizedKvNeedsBlockSizedHeads) {
  models::ModelInfo m = Model("llama3-8b");
  m.key_length = m.value_length = 16;
  config::ModelSettings o;
  o.kv_type = "q8_0";
  auto plan = PlanPlacement(m, Machine("", {}), {"tiny", o, 4096, 4, 0});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(),
            "kv_type q8_0 for 'tiny' needs head sizes that are multiples of 32 (it has 16 and 16)");
  // Only the quantized one counts, named by the option that set it.
  m.key_length = 128;
  o.kv_type = "";
  o.cache_type_v = "q4_0";
  auto v = PlanPlacement(m, Machine("", {}), {"tiny", o, 4096, 4, 0});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "cache_type_v q4_0 for 'tiny' needs head sizes that are multiples of 32 (it has 128 "
            "and 16)");
  o.cache_type_v = "";
  o.cache_type_k = "q8_0";
  EXPECT_TRUE(PlanPlacement(m, Machine("", {}), {"tiny", o, 4096, 4, 0}).ok());
}

// A context asked for that fits nowhere is refused, never silently reduced.
TEST(PolicyTest, RequestedContextThatDoesNotFitIsAnError) {
  auto devices = Machine("", {}, 9 * kGiB);
  config::ModelSettings o;
  o.ctx_size = 8192;
  auto plan = PlanPlacement(Model("llama3-8b"), devices, {"llama", o, 4096, 4, 0});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(plan.status().message().find("8192 tokens × 4 slots"), std::string::npos);
  EXPECT_NE(plan.status().message().find("CPU 9.0 GiB free of 9.0 GiB"), std::string::npos)
      << plan.status().message();
}

// ggml RPC workers extend the CPU: a model that fits here stays here; one
// that does not keeps the most layers here and puts the rest on the
// workers, split by their free memory; a worker that is gone is named in
// the error.
std::vector<PlacementDevice> WithWorkers(uint64_t cpu_limit,
                                         const std::vector<uint64_t>& worker_mib) {
  auto devices = Machine("", {}, cpu_limit);
  for (std::size_t i = 0; i < worker_mib.size(); ++i) {
    const std::string endpoint = "10.0.0." + std::to_string(i + 2) + ":50052";
    const std::string mib = std::to_string(worker_mib[i]);
    devices.push_back(WorkerDevice(
        endpoint, {"rpc:" + endpoint, endpoint + " (" + mib + " MiB, " + mib + " MiB free)",
                   worker_mib[i] * kMiB, worker_mib[i] * kMiB}));
  }
  return devices;
}

TEST(PolicyTest, WorkersOnlyForWhatDoesNotFitHere) {
  auto roomy =
      PlanPlacement(Model("llama3-8b"), WithWorkers(60 * kGiB, {32768}), {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(roomy.ok()) << roomy.status().message();
  EXPECT_TRUE(roomy->gpu_devices.empty());
  EXPECT_TRUE(roomy->rpc_workers.empty());

  auto devices = WithWorkers(6 * kGiB, {32768});
  auto plan = PlanPlacement(Model("llama3-8b"), devices, {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->gpu_devices, std::vector<std::string>{"rpc:10.0.0.2:50052"});
  EXPECT_EQ(plan->rpc_workers, std::vector<std::string>{"10.0.0.2:50052"});
  EXPECT_GT(plan->n_gpu_layers, 0);
  EXPECT_LT(plan->n_gpu_layers, 33);
  EXPECT_LE(plan->BytesOn("CPU"), 6 * kGiB);
  // The fewest layers on the worker: one fewer would not fit the CPU.
  LoadShape shape;
  shape.parallel = 4;
  shape.ctx_per_slot = 4096;
  auto fewer = PredictMemory(Model("llama3-8b"), shape, {1, plan->n_gpu_layers - 1, {}, 0});
  EXPECT_GT(fewer[0].Total(), 6 * kGiB);
  EXPECT_NE(plan->explanation.find("layers of 33 on rpc:10.0.0.2:50052, the rest on the CPU"),
            std::string::npos)
      << plan->explanation;
}

TEST(PolicyTest, TwoWorkersSplitByFreeMemory) {
  auto plan = PlanPlacement(Model("llama3-8b"), WithWorkers(2 * kGiB, {4096, 8192}),
                            {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // The roomiest first, weights in MiB of free memory.
  EXPECT_EQ(plan->rpc_workers, (std::vector<std::string>{"10.0.0.3:50052", "10.0.0.2:50052"}));
  EXPECT_EQ(plan->tensor_split, (std::vector<double>{8192, 4096}));
}

// A model too large for the GPU and the CPU together spreads over both and
// the worker.
TEST(PolicyTest, WorkersBesideALocalGpu) {
  auto devices = Machine("", kSmallGpu, 2 * kGiB);
  devices.push_back(WorkerDevice(
      "10.0.0.2:50052", {"rpc:10.0.0.2:50052", "10.0.0.2:50052 (16384 MiB, 16384 MiB free)",
                         16384 * kMiB, 16384 * kMiB}));
  auto plan = PlanPlacement(Model("llama3-8b"), devices, {"llama", {}, 4096, 4, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->gpu_devices, (std::vector<std::string>{"CUDA0", "rpc:10.0.0.2:50052"}));
  EXPECT_EQ(plan->rpc_workers, std::vector<std::string>{"10.0.0.2:50052"});
  EXPECT_EQ(plan->tensor_split, (std::vector<double>{4096, 16384}));
  EXPECT_LT(plan->n_gpu_layers, 33);
}

TEST(PolicyTest, AGoneWorkerIsNamedWhenTheModelDoesNotFit) {
  auto devices = WithWorkers(2 * kGiB, {});
  devices.push_back(UnreachableWorker("rpc:10.0.0.9:50052", "10.0.0.9:50052",
                                      "RPC worker 10.0.0.9:50052 is unreachable (cannot connect)"));
  auto plan = PlanPlacement(Model("llama3-8b"), devices, {"llama", {}, 4096, 4, 0});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(
      plan.status().message().find("RPC worker 10.0.0.9:50052 is unreachable (cannot connect)"),
      std::string::npos)
      << plan.status().message();
  // Named as the device, it is an error of its own.
  config::ModelSettings o;
  o.device = "rpc:10.0.0.9:50052";
  auto named = PlanPlacement(Model("llama3-8b"), devices, {"llama", o, 4096, 4, 0});
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace zest::placement
