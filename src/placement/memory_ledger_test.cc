// Ledger arithmetic against values computed by hand from the published
// shapes of real models (written as sparse GGUF headers by test_models).
// Q8_0 stores 32 elements in 34 bytes, MXFP4 in 17, F16 2 bytes each.
#include "placement/memory_ledger.h"

#include <gtest/gtest.h>

#include "placement/test_models.h"

namespace zest::placement {
namespace {

using testing::Gemma3_12B;
using testing::GptOss120B;
using testing::Llama3_8B;
using testing::Qwen3_30B_A3B;
using testing::WriteSparseModel;

constexpr uint64_t kMiB = 1ull << 20;

LoadShape Shape(uint64_t ctx, int parallel, KvType kv = KvType::kF16) {
  LoadShape s;
  s.ctx_per_slot = ctx;
  s.parallel = parallel;
  s.cache_type_k = s.cache_type_v = kv;
  return s;
}

TEST(MemoryLedgerTest, Llama3_8BShapeFromHeader) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  // q,o: 4096² → 17,825,792 each; k,v: 4096×1024 → 4,456,448 each;
  // gate,up,down: 4096×14336 → 62,390,272 each; two F32 norms: 32,768.
  ASSERT_EQ(m.layer_bytes.size(), 32u);
  EXPECT_EQ(m.layer_bytes[0], 231'768'064u);
  EXPECT_EQ(m.layer_expert_bytes[0], 0u);
  EXPECT_EQ(m.input_bytes, 558'170'112u);   // token_embd 4096×128256
  EXPECT_EQ(m.output_bytes, 558'186'496u);  // output + output_norm
  EXPECT_EQ(m.tensor_bytes, 8'532'934'656u);
  EXPECT_EQ(m.key_length, 128u);
  EXPECT_EQ(m.vocab_size, 128256u);
  EXPECT_FALSE(m.output_tied);
}

TEST(MemoryLedgerTest, KvCacheByType) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  // 32 layers × 8192 cells × 8 kv heads × (128 + 128) × 2 bytes = 1 GiB.
  EXPECT_EQ(KvCacheBytes(m, Shape(8192, 1)), 1024 * kMiB);
  EXPECT_EQ(KvCacheBytes(m, Shape(2048, 4)), 1024 * kMiB);  // slots share the same cells
  // q8_0: a 128-element row is 4 blocks of 34 bytes (136 instead of 256).
  EXPECT_EQ(KvCacheBytes(m, Shape(8192, 1, KvType::kQ8_0)), 570'425'344u);
  // q4_0: 4 blocks of 18 bytes (72).
  EXPECT_EQ(KvCacheBytes(m, Shape(8192, 1, KvType::kQ4_0)), 301'989'888u);
}

// K and V each with its own type: K rows are kv_heads × key_length, V rows
// kv_heads × value_length, each rounded to its own type's blocks.
TEST(MemoryLedgerTest, KvCacheKAndVTypesApart) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  LoadShape shape = Shape(8192, 1);
  shape.cache_type_k = KvType::kQ8_0;
  shape.cache_type_v = KvType::kQ4_0;
  // 32 layers × 8192 cells × 8 kv heads × (136 + 72) bytes.
  EXPECT_EQ(KvCacheBytes(m, shape), 32ull * 8192 * 8 * (136 + 72));
  EXPECT_EQ(KvCacheBytes(m, shape), 436'207'616u);
  // f16 K (256 bytes a row), q8_0 V (136): halfway between f16 and q8_0 both.
  shape.cache_type_k = KvType::kF16;
  shape.cache_type_v = KvType::kQ8_0;
  EXPECT_EQ(KvCacheBytes(m, shape), 32ull * 8192 * 8 * (256 + 136));
  // Heads of different sizes (gemma-3 style 256/128 is not among the
  // fixtures; set it here): K 256 elements = 8 q8_0 blocks = 272 bytes,
  // V 128 in f16 = 256 bytes.
  m.key_length = 256;
  m.value_length = 128;
  shape.cache_type_k = KvType::kQ8_0;
  shape.cache_type_v = KvType::kF16;
  EXPECT_EQ(KvCacheBytes(m, shape, 0), 8192ull * 8 * (272 + 256));
}

TEST(MemoryLedgerTest, Llama3_8BOnCpuAndOffloaded) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  LoadShape shape = Shape(8192, 1);
  auto cpu_only = PredictMemory(m, shape, {});
  ASSERT_EQ(cpu_only.size(), 1u);
  EXPECT_EQ(cpu_only[0].weights, 8'532'934'656u);
  EXPECT_EQ(cpu_only[0].kv_cache, 1024 * kMiB);
  // Flash attention: 4 × 512 × (4096 + 128256) = the engine's 258.5 MiB.
  EXPECT_EQ(cpu_only[0].compute, 271'056'896u);
  EXPECT_EQ(cpu_only[0].overhead, 24 * kMiB);
  shape.gpu_backend = true;  // a Vulkan/CUDA build loads its libraries even for the CPU
  EXPECT_EQ(PredictMemory(m, shape, {})[0].overhead, 92 * kMiB);
  shape.gpu_backend = false;

  auto full = PredictMemory(m, shape, {1, 33, {}, 0});
  ASSERT_EQ(full.size(), 2u);
  EXPECT_EQ(full[1].weights, 32 * 231'768'064ull + 558'186'496u);  // blocks + head
  EXPECT_EQ(full[1].kv_cache, 1024 * kMiB);
  EXPECT_EQ(full[0].weights, 558'170'112u);  // the embeddings stay
  EXPECT_EQ(full[0].kv_cache, 0u);

  // -ngl 17: the head and the last 16 blocks.
  auto half = PredictMemory(m, shape, {1, 17, {}, 0});
  EXPECT_EQ(half[1].weights, 16 * 231'768'064ull + 558'186'496u);
  EXPECT_EQ(half[1].kv_cache, 512 * kMiB);
  EXPECT_EQ(half[0].weights, 16 * 231'768'064ull + 558'170'112u);
  // -ngl 1: the head alone.
  auto head = PredictMemory(m, shape, {1, 1, {}, 0});
  EXPECT_EQ(head[1].weights, 558'186'496u);
  EXPECT_EQ(head[1].kv_cache, 0u);
}

// A vision projector goes with a model that is all on a GPU, and stays on
// the CPU (--no-mmproj-offload) beside one split with the CPU.
TEST(MemoryLedgerTest, ProjectorWithTheModelOnAGpuElseOnTheCpu) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  LoadShape shape = Shape(8192, 1);
  const uint64_t cpu_overhead = PredictMemory(m, shape, {1, 33, {}, 0})[0].overhead;
  const uint64_t gpu_overhead = PredictMemory(m, shape, {1, 33, {}, 0})[1].overhead;
  shape.mmproj_bytes = 851 * kMiB;
  EXPECT_FALSE(ProjectorOnCpu(m, {1, 33, {}, 0}));
  auto full = PredictMemory(m, shape, {1, 33, {}, 0});
  EXPECT_EQ(full[1].overhead, gpu_overhead + 851 * kMiB);
  EXPECT_EQ(full[0].overhead, cpu_overhead);
  EXPECT_TRUE(ProjectorOnCpu(m, {1, 17, {}, 0}));
  auto half = PredictMemory(m, shape, {1, 17, {}, 0});
  EXPECT_EQ(half[0].overhead, cpu_overhead + 851 * kMiB);
  EXPECT_EQ(half[1].overhead, gpu_overhead);
  EXPECT_TRUE(ProjectorOnCpu(m, {}));
  EXPECT_EQ(PredictMemory(m, shape, {})[0].overhead, 24 * kMiB + 851 * kMiB);
}

// A draft model (speculative decoding): its weights, KV cache and compute
// at the target's context and slots, on the target's main device.
TEST(MemoryLedgerTest, DraftModelOnTheTargetsMainDevice) {
  const models::ModelInfo& target = testing::SparseLlama3_8B();
  const models::ModelInfo draft = target;  // as big as the target: easy to check
  LoadShape shape = Shape(4096, 2);
  const uint64_t draft_bytes = DraftBytes(draft, shape);
  LoadShape alone = shape;
  alone.ubatch = shape.ubatch;
  uint64_t expected = 0;
  for (const DeviceMemory& m : PredictMemory(draft, alone, {})) {
    expected += m.weights + m.kv_cache + m.compute;
  }
  EXPECT_EQ(draft_bytes, expected);
  EXPECT_GT(draft_bytes, draft.tensor_bytes + KvCacheBytes(draft, shape) - 1);
  const auto without = PredictMemory(target, shape, {1, 33, {}, 0});
  shape.draft = std::make_shared<const models::ModelInfo>(draft);
  const auto on_gpu = PredictMemory(target, shape, {1, 33, {}, 0});
  EXPECT_EQ(on_gpu[1].draft, draft_bytes);
  EXPECT_EQ(on_gpu[1].Total(), without[1].Total() + draft_bytes);
  EXPECT_EQ(on_gpu[0].draft, 0u);
  const auto on_cpu = PredictMemory(target, shape, {});
  EXPECT_EQ(on_cpu[0].draft, draft_bytes);
}

// AMX: the CPU blocks' weights are copied (the mapped file stays resident
// too); offloaded blocks and --load-mode none are not doubled.
TEST(MemoryLedgerTest, CpuRepackHoldsBlockWeightsTwice) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  LoadShape shape = Shape(8192, 1);
  shape.cpu_repack = true;
  EXPECT_EQ(PredictMemory(m, shape, {})[0].weights, 8'532'934'656ull + 32 * 231'768'064ull);
  EXPECT_EQ(PredictMemory(m, shape, {1, 17, {}, 0})[0].weights,
            16 * 231'768'064ull * 2 + 558'170'112u);
  shape.mmap = false;
  EXPECT_EQ(PredictMemory(m, shape, {})[0].weights, 8'532'934'656u);
}

TEST(MemoryLedgerTest, WithoutFlashAttentionScoresDominate) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  LoadShape shape = Shape(8192, 1);
  shape.flash_attention = false;
  // 32 heads × 8192 cells > vocab: a layer's peak, the f16 mask 2 × 512 ×
  // 8192 beside 4 × 512 × (4096 + 262144).
  EXPECT_EQ(ComputeBufferBytes(m, shape), 2ull * 512 * 8192 + 545'259'520u);
}

TEST(MemoryLedgerTest, TensorSplitDealsBlocksInOrder) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  auto split = PredictMemory(m, Shape(8192, 1), {2, 33, {3, 1}, 0});
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[1].weights, 24 * 231'768'064ull);
  EXPECT_EQ(split[2].weights, 8 * 231'768'064ull + 558'186'496u);  // the head on the last
  EXPECT_EQ(split[1].kv_cache, 768 * kMiB);
  EXPECT_EQ(split[2].kv_cache, 256 * kMiB);
  EXPECT_EQ(LayerDevice(m, {2, 33, {3, 1}, 0}, 0), 0);
  EXPECT_EQ(LayerDevice(m, {2, 33, {3, 1}, 0}, 31), 1);
}

// A GPU given weight 0 gets no block and no head (llama.cpp never deals a
// layer to it): the head goes to the last GPU with a share.
TEST(MemoryLedgerTest, TensorSplitZeroWeightGpuGetsNothing) {
  models::ModelInfo m = WriteSparseModel(Llama3_8B());
  auto split = PredictMemory(m, Shape(8192, 1), {3, 33, {1, 1, 0}, 0});
  ASSERT_EQ(split.size(), 4u);
  EXPECT_EQ(split[1].weights, 16 * 231'768'064ull);
  EXPECT_EQ(split[2].weights, 16 * 231'768'064ull + 558'186'496u);  // the head
  EXPECT_EQ(split[3].Total(), 0u);  // no block: not even a driver context
  EXPECT_EQ(split[1].kv_cache, 512 * kMiB);
  // Uneven: 1:2:1 of 32 blocks = 8, 16, 8.
  auto uneven = PredictMemory(m, Shape(8192, 1), {3, 33, {1, 2, 1}, 0});
  EXPECT_EQ(uneven[1].kv_cache, 256 * kMiB);
  EXPECT_EQ(uneven[2].kv_cache, 512 * kMiB);
  EXPECT_EQ(uneven[3].kv_cache, 256 * kMiB);
}

TEST(MemoryLedgerTest, Qwen3MoeExpertsStayOnCpu) {
  models::ModelInfo m = WriteSparseModel(Qwen3_30B_A3B());
  // Experts: 3 × 2048×768×128 in Q8_0 = 641,728,512 per block; attention
  // 2048×4096 ×2 + 2048×512 ×2 in Q8_0 = 20,054,016; two norms and the
  // 2048×128 router in F32 = 1,064,960.
  ASSERT_EQ(m.block_count, 48u);
  EXPECT_EQ(m.expert_count, 128u);
  EXPECT_EQ(m.layer_expert_bytes[0], 641'728'512u);
  EXPECT_EQ(m.layer_bytes[0], 662'847'488u);
  EXPECT_EQ(m.tensor_bytes, 32'477'913'088u);

  auto plan = PredictMemory(m, Shape(4096, 4, KvType::kQ8_0), {1, 49, {}, 48});
  EXPECT_EQ(plan[1].weights, 48 * (662'847'488u - 641'728'512u) + 330'620'928u);
  EXPECT_EQ(plan[0].weights, 48 * 641'728'512ull + 330'612'736u);
  // 48 × 16384 cells × 4 kv heads × 2 × (4 blocks × 34 bytes).
  EXPECT_EQ(plan[1].kv_cache, 855'638'016u);
}

TEST(MemoryLedgerTest, GptOss120BSlidingWindowAndMxfp4) {
  models::ModelInfo m = WriteSparseModel(GptOss120B());
  // Experts 3 × 2880×2880×128 MXFP4 = 1,692,057,600 per block.
  EXPECT_EQ(m.layer_expert_bytes[0], 1'692'057'600u);
  EXPECT_EQ(m.tensor_bytes, 64'109'687'040u);
  EXPECT_TRUE(m.IsSlidingWindowLayer(0));
  EXPECT_FALSE(m.IsSlidingWindowLayer(1));
  // 18 full layers × 131072 cells + 18 windowed × (128 + 512) cells,
  // × 8 kv heads × (64 + 64) × 2 bytes.
  EXPECT_EQ(KvCacheBytes(m, Shape(131072, 1)), 4'831'838'208u + 23'592'960u);
}

TEST(MemoryLedgerTest, Gemma3SlidingWindowAndTiedOutput) {
  models::ModelInfo m = WriteSparseModel(Gemma3_12B());
  EXPECT_EQ(m.swa_pattern, 6u);
  EXPECT_TRUE(m.output_tied);
  // 8 global layers × 32768 cells + 40 windowed × (1024 + 512), × 8 × 512 × 2.
  EXPECT_EQ(KvCacheBytes(m, Shape(32768, 1)), 2'147'483'648u + 503'316'480u);
  // On the CPU the tied head is the embedding tensor itself: counted once.
  auto cpu = PredictMemory(m, Shape(32768, 1), {});
  EXPECT_EQ(cpu[0].weights, m.tensor_bytes);
  EXPECT_EQ(m.tensor_bytes, 12'501'826'560u);
  // Offloaded, the GPU gets its own copy of it.
  auto gpu = PredictMemory(m, Shape(32768, 1), {1, 49, {}, 0});
  EXPECT_EQ(gpu[1].weights, 48 * 238'172'160ull + 3840ull * 262144 / 32 * 34 + 3840 * 4);
}

TEST(MemoryLedgerTest, ParseKvType) {
  EXPECT_EQ(*ParseKvType("q8_0"), KvType::kQ8_0);
  EXPECT_FALSE(ParseKvType("q5_1").ok());
}

}  // namespace
}  // namespace zest::placement
