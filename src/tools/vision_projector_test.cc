// The projector file: its tensors, shapes and metadata as llama.cpp's clip
// loader reads them, read back with zest's own reader (models/projector_info.h).
// That the real llama-server loads it and counts its image tokens is
// engines/real_engine_test.cc's.
#include "tools/vision_projector.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "core/testing/temp_dir.h"
#include "models/gguf_reader.h"
#include "models/projector_info.h"
#include "tools/synthetic_model.h"

namespace zest::tools {
namespace {

namespace fs = std::filesystem;

class VisionProjectorTest : public ::testing::Test {
 protected:
  models::GgufFile WriteAndRead(const VisionProjectorSpec& spec) {
    const fs::path path = dir_.path() / "p.mmproj.gguf";
    const Status written = WriteVisionProjector(spec, path);
    EXPECT_TRUE(written.ok()) << written.ToString();
    Result<models::GgufFile> file = models::ReadGguf(path);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    return file.ok() ? *file : models::GgufFile{};
  }
  zest::testing::TempDir dir_{"mmproj"};
};

// name -> {dims, ggml type}
std::map<std::string, std::pair<std::vector<uint64_t>, uint32_t>> Shapes(
    const models::GgufFile& file) {
  std::map<std::string, std::pair<std::vector<uint64_t>, uint32_t>> shapes;
  for (const auto& t : file.tensors) shapes[t.name] = {t.dims, t.type};
  return shapes;
}

TEST_F(VisionProjectorTest, WritesTheLlavaTensorSet) {
  const VisionProjectorSpec spec;  // 32 px images, 8 px patches, width 64
  const models::GgufFile file = WriteAndRead(spec);
  const auto shapes = Shapes(file);
  using Shape = std::pair<std::vector<uint64_t>, uint32_t>;
  constexpr uint32_t kF32 = 0;
  const std::map<std::string, Shape> embeddings = {
      {"v.patch_embd.weight", {{8, 8, 3, 64}, kF32}},
      {"v.patch_embd.bias", {{64}, kF32}},
      {"v.class_embd", {{64}, kF32}},
      {"v.position_embd.weight", {{64, 17}, kF32}},  // 16 patches and the class token
      {"v.pre_ln.weight", {{64}, kF32}},
      {"v.pre_ln.bias", {{64}, kF32}},
      {"mm.0.weight", {{64, 64}, kF32}},
      {"mm.0.bias", {{64}, kF32}},
      {"mm.2.weight", {{64, 64}, kF32}},
      {"mm.2.bias", {{64}, kF32}}};
  for (const auto& [name, shape] : embeddings) {
    ASSERT_TRUE(shapes.contains(name)) << name;
    EXPECT_EQ(shapes.at(name), shape) << name;
  }
  for (uint32_t layer = 0; layer < spec.layers; ++layer) {
    const std::string p = "v.blk." + std::to_string(layer) + ".";
    for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_out"}) {
      EXPECT_EQ(shapes.at(p + m + ".weight"), Shape({64, 64}, kF32)) << p << m;
      EXPECT_EQ(shapes.at(p + m + ".bias"), Shape({64}, kF32)) << p << m;
    }
    EXPECT_EQ(shapes.at(p + "ffn_up.weight"), Shape({64, 128}, kF32));
    EXPECT_EQ(shapes.at(p + "ffn_down.weight"), Shape({128, 64}, kF32));
    EXPECT_EQ(shapes.at(p + "ln1.weight"), Shape({64}, kF32));
    EXPECT_EQ(shapes.at(p + "ln2.bias"), Shape({64}, kF32));
  }
  // 10 outside the blocks, 16 per block (4 attention and 2 ffn linears,
  // 2 norms, each a weight and a bias).
  EXPECT_EQ(file.tensors.size(), 10u + 16u * spec.layers);
}

TEST_F(VisionProjectorTest, WritesTheMetadataTheClipLoaderReads) {
  const models::GgufFile file = WriteAndRead({});
  EXPECT_EQ(file.Architecture(), "clip");
  EXPECT_EQ(file.GetString("general.type"), "mmproj");
  EXPECT_EQ(file.GetString("clip.projector_type"), "mlp");
  EXPECT_TRUE(file.GetBool("clip.has_vision_encoder"));
  EXPECT_EQ(file.GetUint("clip.vision.image_size"), 32u);
  EXPECT_EQ(file.GetUint("clip.vision.patch_size"), 8u);
  EXPECT_EQ(file.GetUint("clip.vision.embedding_length"), 64u);
  EXPECT_EQ(file.GetUint("clip.vision.feed_forward_length"), 128u);
  EXPECT_EQ(file.GetUint("clip.vision.block_count"), 2u);
  EXPECT_EQ(file.GetUint("clip.vision.attention.head_count"), 4u);
  EXPECT_GT(file.GetFloat("clip.vision.attention.layer_norm_epsilon"), 0.0);
  EXPECT_EQ(file.GetUint("clip.vision.projection_dim"), 64u);
  EXPECT_EQ(file.GetArraySize("clip.vision.image_mean"), 3u);
  EXPECT_EQ(file.GetArraySize("clip.vision.image_std"), 3u);
  EXPECT_TRUE(file.GetBool("zest.synthetic"));
}

TEST_F(VisionProjectorTest, ZestsReaderDescribesIt) {
  VisionProjectorSpec spec = ProjectorFor(1280, TensorType::kQ8_0, "big");
  const models::GgufFile file = WriteAndRead(spec);
  Result<models::ProjectorInfo> info = models::DescribeProjector(file);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->name, "big-mmproj");
  EXPECT_EQ(info->vision_projector_type, "mlp");
  EXPECT_TRUE(info->has_vision);
  EXPECT_FALSE(info->has_audio);
  EXPECT_EQ(info->embedding_length, 1280u);
  EXPECT_EQ(info->image_size, 32u);
  EXPECT_EQ(info->patch_size, 8u);
  EXPECT_TRUE(info->synthetic);
  EXPECT_TRUE(models::CheckProjectorFits(*info, 1280).ok());
  EXPECT_FALSE(models::CheckProjectorFits(*info, 64).ok());
  // Q8_0 matrices; the convolution kernel stays F32.
  const auto q8 = static_cast<uint32_t>(TensorType::kQ8_0);
  EXPECT_EQ(file.FindTensor("mm.2.weight")->type, q8);
  EXPECT_EQ(file.FindTensor("v.blk.0.attn_q.weight")->type, q8);
  EXPECT_EQ(file.FindTensor("v.patch_embd.weight")->type, 0u);
}

TEST_F(VisionProjectorTest, FitsEveryPresetThatWritesText) {
  for (const char* preset : {"tiny", "tiny-quote-brace", "small", "bench"}) {
    const SyntheticModelSpec model = *PresetSpec(preset);
    const VisionProjectorSpec spec = ProjectorFor(model.embedding, model.type, model.name);
    EXPECT_EQ(spec.text_embedding, model.embedding) << preset;
    EXPECT_EQ(spec.type, model.type) << preset;
    const Status written = WriteVisionProjector(spec, dir_.path() / "preset.mmproj.gguf");
    EXPECT_TRUE(written.ok()) << preset << ": " << written.ToString();
  }
}

TEST(VisionProjectorSpecTest, CountsOneTokenPerPatch) {
  EXPECT_EQ(ImageTokenCount({}), 16u);
  EXPECT_EQ(ImageTokenCount({.image_size = 224, .patch_size = 14}), 256u);
}

TEST_F(VisionProjectorTest, RefusesShapesTheEngineCannotRun) {
  const fs::path path = dir_.path() / "bad.gguf";
  const std::vector<VisionProjectorSpec> bad = {
      {.image_size = 30},                                  // not a multiple of the patch
      {.heads = 3},                                        // 64 is not a multiple of 3
      {.feed_forward = 64},                                // taken for swapped up/down
      {.layers = 0},                                       // no encoder
      {.text_embedding = 48, .type = TensorType::kQ8_0}};  // not Q8_0 blocks
  for (const VisionProjectorSpec& spec : bad) {
    Status status = WriteVisionProjector(spec, path);
    EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument) << status.ToString();
    EXPECT_FALSE(fs::exists(path));
  }
}

TEST_F(VisionProjectorTest, TheSeedChoosesTheWeights) {
  const fs::path a = dir_.path() / "a.gguf", b = dir_.path() / "b.gguf", c = dir_.path() / "c.gguf";
  ASSERT_TRUE(WriteVisionProjector({.seed = 7}, a).ok());
  ASSERT_TRUE(WriteVisionProjector({.seed = 7}, b).ok());
  ASSERT_TRUE(WriteVisionProjector({.seed = 8}, c).ok());
  auto bytes = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(a), bytes(b));
  EXPECT_NE(bytes(a), bytes(c));
}

}  // namespace
}  // namespace zest::tools
