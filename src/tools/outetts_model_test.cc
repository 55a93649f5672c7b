// The speech-out model's two files, read back with zest's own GGUF reader:
// the backbone's architecture, vocabulary and steering, the vocoder's
// hyperparameters and tensor set as llama.cpp's wavtokenizer-dec loader
// wants them. No test runs them in a real llama-tts: the engine rootfs's
// (0.7.0) no longer takes OuteTTS models (tools/outetts_model.h).
#include "tools/outetts_model.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "core/testing/temp_dir.h"
#include "models/gguf_reader.h"

namespace zest::tools {
namespace {

namespace fs = std::filesystem;

class OuteTtsModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status written = WriteOuteTtsModel(OuteTtsModelSpec{}, backbone_path_);
    ASSERT_TRUE(written.ok()) << written.ToString();
  }
  static models::GgufFile Read(const fs::path& path) {
    Result<models::GgufFile> file = models::ReadGguf(path);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    return file.ok() ? *file : models::GgufFile{};
  }
  zest::testing::TempDir dir_{"outetts"};
  fs::path backbone_path_ = dir_.path() / "voice.gguf";
};

TEST_F(OuteTtsModelTest, VocoderGoesBesideTheBackbone) {
  EXPECT_EQ(OuteTtsVocoderPath("/m/voice.gguf"), fs::path("/m/voice.vocoder.gguf"));
  EXPECT_TRUE(fs::exists(dir_.path() / "voice.vocoder.gguf"));
}

TEST_F(OuteTtsModelTest, BackboneHasTheTokensLlamaTtsLooksUp) {
  const models::GgufFile file = Read(backbone_path_);
  EXPECT_EQ(file.Architecture(), "llama");
  EXPECT_TRUE(file.GetBool("zest.synthetic"));
  const models::GgufValue* tokens = file.Find("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  const auto& list = std::get<std::vector<std::string>>(tokens->value);
  ASSERT_EQ(list.size(), kOuteTtsBackboneVocab);
  EXPECT_EQ(list[198], "<0x0A>");  // the newline, which guide tokens key on
  EXPECT_EQ(list[151644], "<|im_start|>");
  EXPECT_EQ(list[151667], "<|audio_start|>");
  EXPECT_EQ(list[151669], "<|code_start|>");
  EXPECT_EQ(list[151670], "<|code_end|>");
  EXPECT_EQ(list[151671], "<|text_sep|>");
  EXPECT_EQ(list[kOuteTtsFirstCodeToken], "<|0|>");
  EXPECT_EQ(list[kOuteTtsFirstCodeToken + 1827], "<|1827|>");
  EXPECT_EQ(list[155780], "<|t_0.08|>");  // as in llama-tts's built-in speaker
  const models::GgufTensorInfo* output = file.FindTensor("output.weight");
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->dims, (std::vector<uint64_t>{16, kOuteTtsBackboneVocab}));
}

TEST_F(OuteTtsModelTest, VocoderHasTheWavTokenizerTensorSet) {
  const models::GgufFile file = Read(OuteTtsVocoderPath(backbone_path_));
  EXPECT_EQ(file.Architecture(), "wavtokenizer-dec");
  EXPECT_EQ(file.GetString("tokenizer.ggml.model"), "none");
  EXPECT_EQ(file.ArchUint("embedding_length"), kOuteTtsVocoderOutput);
  EXPECT_EQ(file.ArchUint("vocab_size"), kOuteTtsCodebookSize);
  EXPECT_EQ(file.ArchUint("posnet.block_count"), 6u);
  const std::vector<std::pair<std::string, std::vector<uint64_t>>> expected = {
      {"token_embd.weight", {16, kOuteTtsCodebookSize}},
      {"conv1d.weight", {7, 16, 32}},
      {"conv1d.bias", {1, 32}},
      {"posnet.0.conv1.weight", {3, 32, 32}},
      {"posnet.2.attn_q.weight", {1, 32, 32}},
      {"posnet.5.attn_norm.bias", {1, 32}},
      {"token_embd_norm.weight", {32}},
      {"convnext.0.dw.weight", {7, 1, 32}},
      {"convnext.0.pw1.weight", {32, 64}},
      {"convnext.0.gamma.weight", {32}},
      {"output.weight", {32, kOuteTtsVocoderOutput}},
      {"output.bias", {kOuteTtsVocoderOutput}}};
  for (const auto& [name, dims] : expected) {
    const models::GgufTensorInfo* tensor = file.FindTensor(name);
    ASSERT_NE(tensor, nullptr) << name;
    EXPECT_EQ(tensor->dims, dims) << name;
  }
  // conv1d and the token norm, 4 resnets of 8, attention 10, final norm 2,
  // one convnext block of 9, output norm and projection 4.
  EXPECT_EQ(file.tensors.size(), 1u + 2 + 4 * 8 + 10 + 2 + 2 + 9 + 4);
}

TEST_F(OuteTtsModelTest, DurationIsOneHopPerGeneratedCode) {
  EXPECT_DOUBLE_EQ(OuteTtsWavSeconds(74), 1.0);  // 75 codes
  EXPECT_DOUBLE_EQ(kOuteTtsSecondsPerCode, 320.0 / 24000.0);
}

TEST(OuteTtsModelSpecTest, RejectsShapesLlamaCppCannotRun) {
  zest::testing::TempDir dir{"tts-bad"};
  OuteTtsModelSpec spec;
  spec.vocoder_groups = 5;  // 32 channels do not split into 5 groups
  EXPECT_FALSE(WriteOuteTtsModel(spec, dir.path() / "x.gguf").ok());
  spec = OuteTtsModelSpec{};
  spec.heads = 3;
  EXPECT_FALSE(WriteOuteTtsModel(spec, dir.path() / "x.gguf").ok());
}

}  // namespace
}  // namespace zest::tools
