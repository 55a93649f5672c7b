// FastFlowLM's rules (placement_needs.h) driving placement's engine-neutral
// NPU planner (placement/npu.h) through PlanPlacement, on the FAKE Ryzen AI
// 300 laptop (XDNA2 NPU + Radeon 890M) and the FAKE RX 7900 XTX desktop (no
// NPU) in tests/fixtures/hardware, with the real recipe verdicts.
// FastFlowLM is "installed" by giving the verdicts a path; nothing here runs
// it. Also what the CPU engines say they need.
#include "engines/placement_needs.h"

#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "hardware/test_fixtures.h"
#include "placement/eviction.h"
#include "placement/fit.h"
#include "placement/policy.h"
#include "placement/test_models.h"
#include "tools/gguf_writer.h"

namespace zest::engines {
namespace {

using placement::EnginePlan;
using placement::FitOfPlan;
using placement::FreeAfter;
using placement::PlacementDevice;
namespace testing = placement::testing;

constexpr uint64_t kGiB = 1ull << 30;

struct Machine {
  std::vector<PlacementDevice> devices;
  placement::NpuRequest npu;
};

// `flm`: where FastFlowLM is installed ("" = not installed).
Machine Fixture(const std::string& fixture, const std::string& flm, uint64_t memory_limit = 0) {
  hardware::Inventory inventory = hardware::Discover(hardware::FixtureRoots(fixture), {false});
  EngineFacts engines;
  engines.llama_server_found = true;
  engines.llama_server_source = "rootfs";
  engines.probed = true;
  engines.devices = {{"Vulkan0", "AMD Radeon 890M Graphics (RADV GFX1150)"}};
  engines.flm_path = flm;
  Machine m;
  m.devices = placement::DevicesFromInventory(inventory, engines.devices, memory_limit);
  m.npu = NpuRequestFor(inventory, RecipeVerdicts(inventory, engines));
  return m;
}

Result<EnginePlan> Plan(const Machine& machine, const std::string& checkpoint,
                        config::ModelSettings options = {}, const std::string& held_by = "",
                        uint64_t default_ctx = 4096) {
  placement::PlacementRequest request;
  request.model_name = "llama";
  request.options = std::move(options);
  request.default_ctx_per_slot = default_ctx;
  request.npu = machine.npu;
  request.npu.checkpoint = checkpoint;
  request.npu.held_by = held_by;
  request.npu.refused_options = NpuRefusedOptions(request.options);
  return placement::PlanPlacement(testing::SparseLlama3_8B(), machine.devices, request);
}

config::ModelSettings Device(const std::string& device) {
  config::ModelSettings o;
  o.device = device;
  return o;
}

TEST(FlmPlacementTest, AModelWithAnNpuBuildRunsOnTheUsableNpu) {
  auto plan = Plan(Fixture("ryzen-ai-300-laptop", "/usr/bin/flm"), "llama3.1:8b");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(plan->on_npu);
  EXPECT_EQ(plan->engine_checkpoint, "llama3.1:8b");
  EXPECT_TRUE(plan->gpu_devices.empty());
  EXPECT_EQ(plan->parallel, 1);
  EXPECT_EQ(plan->ctx_per_slot, 4096u);
  ASSERT_EQ(plan->memory.size(), 1u);
  EXPECT_EQ(plan->memory[0].device, "NPU");
  // The GGUF's weights, one sequence's f16 KV cache (32 blocks × 4096 cells ×
  // 8 heads × (128 + 128) × 2 bytes = 512 MiB), and the runtime.
  EXPECT_EQ(plan->memory[0].memory.weights, testing::SparseLlama3_8B().file_size);
  EXPECT_EQ(plan->memory[0].memory.kv_cache, 512ull << 20);
  EXPECT_EQ(plan->memory[0].memory.overhead, kFlmRuntimeBytes);
  EXPECT_NE(plan->explanation.find("on the NPU (AMD XDNA2 NPU (Strix/Krackan)) with FastFlowLM as "
                                   "'llama3.1:8b': FastFlowLM (/usr/bin/flm) on the XDNA2 NPU"),
            std::string::npos)
      << plan->explanation;
  // `zest list` says where it would run.
  EXPECT_EQ(FitOfPlan(plan, testing::SparseLlama3_8B(),
                      Fixture("ryzen-ai-300-laptop", "/usr/bin/flm").devices, 0)
                .verdict,
            "npu");
}

TEST(FlmPlacementTest, FallsBackToTheGpuAndSaysWhyNotTheNpu) {
  struct Case {
    std::string name;
    std::string flm;      // installed where
    std::string held_by;  // the NPU's current model
    config::ModelSettings options;
    std::string why;  // in the explanation
  };
  config::ModelSettings layers;
  layers.n_gpu_layers = 33;
  config::ModelSettings extra;
  extra.extra_args = {"--temp", "0.5"};
  const std::vector<Case> cases = {
      {"not installed",
       "",
       "",
       {},
       "Not on the NPU: the XDNA2 NPU qualifies (firmware 1.1.2.64); install FastFlowLM to use "
       "it."},
      {"held by another model",
       "/usr/bin/flm",
       "qwen",
       {},
       "Not on the NPU: it runs 'qwen' (FastFlowLM holds one model at a time)."},
      {"llama-server layout pinned", "/usr/bin/flm", "", layers,
       "Not on the NPU: its options set n_gpu_layers, which only llama-server takes."},
      {"llama-server arguments", "/usr/bin/flm", "", extra,
       "Not on the NPU: its options set extra_args, which only llama-server takes."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plan = Plan(Fixture("ryzen-ai-300-laptop", c.flm), "llama3.1:8b", c.options, c.held_by);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_FALSE(plan->on_npu);
    EXPECT_EQ(plan->gpu_devices, std::vector<std::string>{"Vulkan0"});
    EXPECT_NE(plan->explanation.find(c.why), std::string::npos) << plan->explanation;
  }
}

TEST(FlmPlacementTest, NoWordAboutTheNpuForAModelWithoutAnNpuBuildOrAMachineWithoutOne) {
  auto laptop = Plan(Fixture("ryzen-ai-300-laptop", "/usr/bin/flm"), "");
  ASSERT_TRUE(laptop.ok());
  EXPECT_FALSE(laptop->on_npu);
  EXPECT_EQ(laptop->explanation.find("NPU"), std::string::npos) << laptop->explanation;
  auto desktop = Plan(Fixture("radeon-7900xtx-desktop", "/usr/bin/flm"), "llama3.1:8b");
  ASSERT_TRUE(desktop.ok());
  EXPECT_FALSE(desktop->on_npu);
  EXPECT_EQ(desktop->explanation.find("NPU"), std::string::npos) << desktop->explanation;
}

TEST(FlmPlacementTest, AskingForTheNpuTurnsEachReasonIntoAnError) {
  struct Case {
    std::string name;
    std::string fixture;
    std::string flm;
    std::string checkpoint;
    std::string held_by;
    config::ModelSettings options;
    ErrorCode code;
    std::string message;
  };
  config::ModelSettings pinned = Device("npu");
  pinned.ubatch = 256;
  const std::string laptop = "ryzen-ai-300-laptop";
  const std::vector<Case> cases = {
      {"no NPU", "radeon-7900xtx-desktop", "/usr/bin/flm", "llama3.1:8b", "", Device("npu"),
       ErrorCode::kInvalidArgument, "'llama' cannot run on the NPU: this machine has no NPU"},
      {"no NPU build", laptop, "/usr/bin/flm", "", "", Device("NPU"), ErrorCode::kInvalidArgument,
       "'llama' cannot run on the NPU: it has no FastFlowLM build"},
      {"not installed", laptop, "", "llama3.1:8b", "", Device("npu"), ErrorCode::kUnavailable,
       "install FastFlowLM to use it"},
      // Held: a memory error, so the pool evicts the holder when it is idle.
      {"held", laptop, "/usr/bin/flm", "llama3.1:8b", "qwen", Device("npu"),
       ErrorCode::kInsufficientMemory, "it runs 'qwen' (FastFlowLM holds one model at a time)"},
      {"llama-server option", laptop, "/usr/bin/flm", "llama3.1:8b", "", pinned,
       ErrorCode::kInvalidArgument, "its options set batch, which only llama-server takes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plan = Plan(Fixture(c.fixture, c.flm), c.checkpoint, c.options, c.held_by);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), c.code);
    EXPECT_NE(plan.status().message().find(c.message), std::string::npos)
        << plan.status().message();
  }
}

TEST(FlmPlacementTest, MemoryComesFromSystemRam) {
  // 9 GiB for zest: the 8B model's 8.5 GB of weights, its KV cache and the
  // runtime do not fit at the trained 8192 tokens; an automatic context
  // shrinks (by halves) until they do.
  const Machine small = Fixture("ryzen-ai-300-laptop", "/usr/bin/flm", 9 * kGiB);
  auto fitted = Plan(small, "llama3.1:8b", Device("npu"), "", /*default_ctx=*/0);
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_LT(fitted->ctx_per_slot, 8192u);
  EXPECT_GE(fitted->ctx_per_slot, kFlmMinContext);
  EXPECT_LE(fitted->TotalBytes(), 9 * kGiB);
  // An explicit context is never shrunk: asked for, it is an error (507).
  config::ModelSettings wide = Device("npu");
  wide.ctx_size = 8192;
  auto refused = Plan(small, "llama3.1:8b", wide);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(refused.status().message().find("of system memory for a context of 8192 tokens, and "
                                            "9.0 GiB is free"),
            std::string::npos)
      << refused.status().message();
  // What the NPU holds comes out of the CPU's free memory for the next plan.
  auto on_npu = Plan(Fixture("ryzen-ai-300-laptop", "/usr/bin/flm"), "llama3.1:8b");
  ASSERT_TRUE(on_npu.ok());
  const Machine laptop = Fixture("ryzen-ai-300-laptop", "/usr/bin/flm");
  auto after = FreeAfter(laptop.devices, {&*on_npu});
  EXPECT_EQ(after[0].free_bytes, laptop.devices[0].free_bytes - on_npu->TotalBytes());
  EXPECT_EQ(after[1].free_bytes, laptop.devices[1].free_bytes);  // the GPU's own memory
}

TEST(FlmPlacementTest, TheNpuBuildIsTheOptionsElseTheCatalogs) {
  config::ModelSettings options;
  EXPECT_EQ(NpuCheckpoint(options, ""), "");
  EXPECT_EQ(NpuCheckpoint(options, "Qwen3-0.6B-GGUF"), "qwen3:0.6b");
  options.flm = "llama3.2:1b";
  EXPECT_EQ(NpuCheckpoint(options, "Qwen3-0.6B-GGUF"), "llama3.2:1b");
  EXPECT_EQ(NpuRefusedOptions(options), "");
  options.n_gpu_layers = 3;
  options.extra_args = {"--temp", "0"};
  EXPECT_EQ(NpuRefusedOptions(options), "n_gpu_layers, extra_args, which only llama-server takes");
}

TEST(CpuEngineNeedsTest, SpeechAndImageEnginesSayWhatTheyNeedBesideTheWeights) {
  models::ModelInfo whisper;
  whisper.speech = true;
  whisper.vocab_size = 51865;
  whisper.context_length = 448;
  placement::CpuEngineNeeds speech = CpuEngineNeedsFor({.speech = true}, whisper);
  EXPECT_EQ(speech.buffers, 51865u * 448 * 4);  // the decoder's F32 logits
  EXPECT_EQ(speech.engine_bytes, kSpeechEngineBytes);
  EXPECT_EQ(speech.ctx_per_slot, 448u);
  EXPECT_EQ(speech.engine, "whisper.cpp");
  models::ModelInfo sd;
  sd.image = true;
  sd.architecture = "stable-diffusion";
  sd.tensor_bytes = 2 * kGiB;
  placement::CpuEngineNeeds images = CpuEngineNeedsFor({.images = true}, sd);
  EXPECT_EQ(images.buffers, kImageComputeBytes);
  EXPECT_EQ(images.engine_bytes, kImageEngineBytes);
  Result<EnginePlan> plan =
      placement::PlanWholeOnCpu(sd, Fixture("radeon-7900xtx-desktop", "").devices, images);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->TotalBytes(), 2 * kGiB + kImageComputeBytes + kImageEngineBytes);
  EXPECT_NE(
      plan->explanation.find("Image model (stable-diffusion) on the CPU (stable-diffusion.cpp)"),
      std::string::npos)
      << plan->explanation;
}

}  // namespace
}  // namespace zest::engines

namespace zest::engines {
namespace {

// A GGUF of `architecture` with an embedding width, no tensors, in `dir`
// (a directory of the test's own: under gtest's shared TempDir() a file
// of the same name another user's run left there cannot be overwritten).
std::filesystem::path WriteVocoder(const zest::testing::TempDir& dir, const std::string& name,
                                   const std::string& architecture, uint64_t width = 768) {
  std::filesystem::path path = dir.path() / name;
  tools::GgufWriter w;
  w.AddString("general.architecture", architecture);
  w.AddUint64(architecture + ".embedding_length", width);
  EXPECT_TRUE(w.Write(path).ok());
  return path;
}

TEST(VocoderBytesTest, AWavTokenizerAddsItsOwnEngineAndABatchOfWorkingBuffers) {
  zest::testing::TempDir dir;
  const std::filesystem::path wav = WriteVocoder(dir, "wt.vocoder.gguf", "wavtokenizer-dec");
  const std::filesystem::path other = WriteVocoder(dir, "qt.vocoder.gguf", "clip");
  const uint64_t wav_file = std::filesystem::file_size(wav);
  // 4096 codes x (1282 outputs + 8 x 768 activations) x 4 bytes: ~115 MiB,
  // and the batch's 1282 floats a code as JSON text, 64 bytes a float: 321 MiB.
  EXPECT_EQ(VocoderBytes(wav),
            wav_file + kTtsEngineBytes + 4096ull * (1282 + 8 * 768) * 4 + 4096ull * 1282 * 64);
  EXPECT_EQ(VocoderBytes(other), std::filesystem::file_size(other));  // llama-tts's: its weights
  EXPECT_EQ(VocoderBytes("/no/such.vocoder.gguf"), 0u);
}

TEST(VocoderBytesTest, AnUntrustedWidthIsChargedAtMostTheCapNeverWrapped) {
  // 2^62 wide: unclamped, 4096 x 8 x 2^62 x 4 wraps round to a small number.
  zest::testing::TempDir dir;
  const std::filesystem::path huge =
      WriteVocoder(dir, "huge.vocoder.gguf", "wavtokenizer-dec", uint64_t{1} << 62);
  const uint64_t file = std::filesystem::file_size(huge);
  EXPECT_EQ(VocoderBytes(huge),
            file + kTtsEngineBytes + 4096ull * (1282 + 8 * 65536ull) * 4 + 4096ull * 1282 * 64);
  const std::filesystem::path at_cap =
      WriteVocoder(dir, "cap.vocoder.gguf", "wavtokenizer-dec", uint64_t{1} << 16);
  EXPECT_EQ(VocoderBytes(at_cap), VocoderBytes(huge));
}

}  // namespace
}  // namespace zest::engines
