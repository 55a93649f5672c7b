// ProjectorInfo from GGUF bytes made by hand (tools/vision_projector_test.cc
// reads the files zest-make-model writes).
#include "models/projector_info.h"

#include <gtest/gtest.h>

#include "models/gguf_test_bytes.h"

namespace zest::models {
namespace {

using testing::GgufBytes;

struct Projector {
  std::string arch = "clip";
  std::string projector_type = "mlp";  // empty: one type per encoder
  bool vision = true;
  bool audio = false;
  bool gen_audio = false;  // a speech-out codec (clip.has_gen_audio_encoder)
  uint32_t projection_dim = 2048;
  uint64_t mm2_rows = 0;  // an mm.2.weight of {64, mm2_rows} when set
};

// A projector header as llama.cpp's converter writes one, and its tensor
// data: mm.2.weight (F32) when asked for.
std::string ProjectorBytes(const Projector& p) {
  const uint64_t tensors = p.mm2_rows != 0 ? 1 : 0;
  const bool mixed = p.projector_type.empty();
  GgufBytes b;
  b.Header(tensors, 9 + (mixed ? 2 : 1) + (p.gen_audio ? 2 : 0));
  b.Str("general.architecture").U32(kGgufString).Str(p.arch);
  b.Str("general.name").U32(kGgufString).Str("proj");
  if (mixed) {
    b.Str("clip.vision.projector_type").U32(kGgufString).Str("qwen2.5o");
    b.Str("clip.audio.projector_type").U32(kGgufString).Str("qwen2a");
  } else {
    b.Str("clip.projector_type").U32(kGgufString).Str(p.projector_type);
  }
  b.Str("clip.has_vision_encoder").U32(kGgufBool).Pod<uint8_t>(p.vision);
  b.Str("clip.has_audio_encoder").U32(kGgufBool).Pod<uint8_t>(p.audio);
  if (p.gen_audio) {
    b.Str("clip.has_gen_audio_encoder").U32(kGgufBool).Pod<uint8_t>(1);
    b.Str("clip.gen.audio.projector_type").U32(kGgufString).Str("qwen3tts");
  }
  b.Str("clip.vision.image_size").U32(kGgufUint32).U32(448);
  b.Str("clip.vision.patch_size").U32(kGgufUint32).U32(14);
  b.Str("clip.vision.projection_dim").U32(kGgufUint32).U32(p.projection_dim);
  b.Str("clip.audio.projection_dim").U32(kGgufUint32).U32(p.projection_dim);
  b.Str("clip.vision.image_mean")
      .U32(kGgufArray)
      .U32(kGgufFloat32)
      .U64(3)
      .Pod(0.5f)
      .Pod(0.5f)
      .Pod(0.5f);
  if (tensors != 0) b.Str("mm.2.weight").U32(2).U64(64).U64(p.mm2_rows).U32(0).U64(0);
  b.PadTo(32);
  if (tensors != 0) b.Raw(std::string(64 * p.mm2_rows * 4, '\0'));
  return b.str();
}

Result<ProjectorInfo> Describe(const Projector& p) {
  Result<GgufFile> file = ParseGguf(ProjectorBytes(p));
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return file.status();
  return DescribeProjector(*file);
}

TEST(ProjectorInfoTest, ReadsAVisionProjector) {
  Result<ProjectorInfo> info = Describe({});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->name, "proj");
  EXPECT_EQ(info->vision_projector_type, "mlp");
  EXPECT_EQ(info->audio_projector_type, "");
  EXPECT_TRUE(info->has_vision);
  EXPECT_FALSE(info->has_audio);
  EXPECT_EQ(info->embedding_length, 2048u);
  EXPECT_EQ(info->image_size, 448u);
  EXPECT_EQ(info->patch_size, 14u);
  EXPECT_FALSE(info->synthetic);
}

// Older LLaVA conversions wrote CLIP's own projection_dim; the output
// layer says what the text model receives.
TEST(ProjectorInfoTest, AnMlpProjectorsWidthIsItsOutputLayers) {
  Result<ProjectorInfo> info = Describe({.projection_dim = 768, .mm2_rows = 4096});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->embedding_length, 4096u);
  EXPECT_EQ(info->tensor_bytes, 64u * 4096 * 4);
  // Other types have no such layer: projection_dim it is.
  info = Describe({.projector_type = "gemma3", .projection_dim = 2560, .mm2_rows = 4096});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->embedding_length, 2560u);
}

TEST(ProjectorInfoTest, ReadsOneTypePerEncoderWhenItHasBoth) {
  Result<ProjectorInfo> info = Describe({.projector_type = "", .audio = true});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_TRUE(info->has_vision);
  EXPECT_TRUE(info->has_audio);
  EXPECT_EQ(info->vision_projector_type, "qwen2.5o");
  EXPECT_EQ(info->audio_projector_type, "qwen2a");
  // An audio-only projector takes no images.
  info = Describe({.projector_type = "ultravox", .vision = false, .audio = true});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->vision_projector_type, "");
  EXPECT_EQ(info->audio_projector_type, "ultravox");
  EXPECT_EQ(info->image_size, 0u);
}

TEST(ProjectorInfoTest, RefusesWhatIsNotAProjector) {
  Result<ProjectorInfo> model = Describe({.arch = "llama"});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("'llama'"), std::string::npos);
  Result<ProjectorInfo> empty = Describe({.vision = false});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no vision, audio or audio generation encoder"),
            std::string::npos);
}

// Qwen3-TTS's and Pocket TTS's codecs ship as projectors that write audio.
TEST(ProjectorInfoTest, ReadsACodecThatWritesAudio) {
  Result<ProjectorInfo> info =
      Describe({.projector_type = "qwen3tts", .vision = false, .gen_audio = true});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_TRUE(info->has_gen_audio);
  EXPECT_FALSE(info->has_vision);
  EXPECT_FALSE(info->has_audio);
  EXPECT_EQ(info->gen_audio_projector_type, "qwen3tts");
}

TEST(ProjectorInfoTest, AWidthThatDiffersFromTheModelsIsRefusedWithBoth) {
  ProjectorInfo projector;
  projector.name = "p";
  projector.embedding_length = 2048;
  EXPECT_TRUE(CheckProjectorFits(projector, 2048).ok());
  Status refused = CheckProjectorFits(projector, 4096);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("2048"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("4096"), std::string::npos) << refused.message();
  // Unknown width: the engine decides.
  EXPECT_TRUE(CheckProjectorFits(ProjectorInfo{}, 4096).ok());
}

}  // namespace
}  // namespace zest::models
