#include "tools/whisper_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "core/testing/temp_dir.h"
#include "models/whisper_file.h"
#include "tools/whisper_vocab.h"

namespace zest::tools {
namespace {

namespace fs = std::filesystem;

// Each test writes its models in a directory of its own.
class WhisperModelTest : public ::testing::Test {
 protected:
  fs::path TempPath(const std::string& name) const {
    return dir_.path() / ("zest_whisper_" + name + ".bin");
  }
  zest::testing::TempDir dir_{"whisper"};
};

TEST(WhisperVocabTest, SpecialTokensFollowNVocab) {
  const WhisperSpecialTokens en = WhisperSpecialTokensFor(kWhisperEnglishVocabSize);
  EXPECT_EQ(en.end_of_text, 50256);
  EXPECT_EQ(en.start_of_transcript, 50257);
  EXPECT_EQ(en.timestamp_begin, 50363);
  const WhisperSpecialTokens multi = WhisperSpecialTokensFor(kWhisperMultilingualVocabSize);
  EXPECT_EQ(multi.end_of_text, 50257);
  EXPECT_EQ(multi.start_of_transcript, 50258);
  EXPECT_EQ(multi.languages, 99);
  EXPECT_EQ(multi.translate, 50358);
  EXPECT_EQ(multi.transcribe, 50359);
  EXPECT_EQ(multi.no_timestamps, 50363);
  EXPECT_EQ(multi.timestamp_begin, 50364);
  const WhisperSpecialTokens v3 = WhisperSpecialTokensFor(51866);
  EXPECT_EQ(v3.languages, 100);
  EXPECT_EQ(v3.translate, 50359);
  // 1501 timestamps (0.00 s to 30.00 s in 20 ms steps) end every vocabulary.
  for (int32_t n : {51864, 51865, 51866}) {
    EXPECT_EQ(n - WhisperSpecialTokensFor(n).timestamp_begin, 1501) << n;
  }
}

TEST(WhisperVocabTest, StoresTheOrdinaryTokensOnce) {
  const std::vector<std::string> multi = BuildWhisperVocab(kWhisperMultilingualVocabSize);
  EXPECT_EQ(multi.size(), 50257u);
  EXPECT_EQ(BuildWhisperVocab(kWhisperEnglishVocabSize).size(), 50256u);
  EXPECT_EQ(std::set<std::string>(multi.begin(), multi.end()).size(), multi.size());
  EXPECT_EQ(multi[' '], " ");  // whisper.cpp's blank suppression looks it up
  EXPECT_EQ(multi[0], std::string(1, '\0'));
  EXPECT_EQ(multi[256], " ba");
  EXPECT_EQ(multi[257], "ba");
  for (size_t i = 256; i < multi.size(); ++i) {
    for (char c : multi[i]) EXPECT_TRUE(c == ' ' || (c >= 'a' && c <= 'z')) << multi[i];
  }
}

TEST_F(WhisperModelTest, ReadsBackWhatItWrote) {
  const fs::path path = TempPath("default");
  const WhisperModelSpec spec;
  ASSERT_TRUE(WriteWhisperModel(spec, path).ok());
  Result<models::WhisperFile> f = models::ReadWhisperFile(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const models::WhisperHparams& h = f->hparams;
  EXPECT_EQ(h.n_vocab, 51865);
  EXPECT_TRUE(models::IsMultilingual(h));
  EXPECT_EQ(h.n_audio_ctx, 1500);
  EXPECT_EQ(h.n_text_ctx, 448);
  EXPECT_EQ(h.n_audio_state, 64);
  EXPECT_EQ(h.n_text_state, 64);
  EXPECT_EQ(h.n_audio_head, 1);
  EXPECT_EQ(h.n_audio_layer, 2);
  EXPECT_EQ(h.n_text_layer, 1);  // 2 would pass for distil-whisper
  EXPECT_EQ(h.n_mels, 80);
  EXPECT_EQ(h.ftype, 1);
  EXPECT_EQ(f->mel_bands, 80);
  EXPECT_EQ(f->fft_bins, 201);
  EXPECT_EQ(f->vocab_count, 50257u);
  // whisper.cpp's tensor list: 7 + 4 outside the blocks, 15 per encoder
  // block, 24 per decoder block; it refuses a file missing any of them.
  EXPECT_EQ(f->tensors.size(), 11u + 15 * 2 + 24 * 1);
  std::set<std::string> names;
  for (const auto& t : f->tensors) names.insert(t.name);
  EXPECT_EQ(names.size(), f->tensors.size());
  const uint64_t n = 64;
  auto dims = [&](const char* name) { return f->FindTensor(name)->dims; };
  auto type = [&](const char* name) { return f->FindTensor(name)->type; };
  EXPECT_EQ(dims("encoder.positional_embedding"), (std::vector<uint64_t>{n, 1500}));
  EXPECT_EQ(dims("encoder.conv1.weight"), (std::vector<uint64_t>{3, 80, n}));
  EXPECT_EQ(dims("encoder.conv1.bias"), (std::vector<uint64_t>{1, n}));
  EXPECT_EQ(dims("encoder.blocks.1.mlp.0.weight"), (std::vector<uint64_t>{n, 4 * n}));
  EXPECT_EQ(dims("decoder.token_embedding.weight"), (std::vector<uint64_t>{n, 51865}));
  EXPECT_EQ(dims("decoder.blocks.0.cross_attn.out.weight"), (std::vector<uint64_t>{n, n}));
  EXPECT_EQ(f->FindTensor("decoder.blocks.0.attn.key.bias"), nullptr);  // whisper has none
  EXPECT_EQ(type("encoder.conv2.weight"), 1u);
  EXPECT_EQ(type("encoder.positional_embedding"), 0u);
  EXPECT_EQ(type("decoder.ln.weight"), 0u);
  EXPECT_EQ(type("decoder.blocks.0.attn.query.weight"), 1u);
  EXPECT_LT(f->file_size, 10u << 20);
}

TEST_F(WhisperModelTest, EnglishOnlyAndQ8_0) {
  const fs::path path = TempPath("en_q8");
  const WhisperModelSpec spec{
      .audio_layers = 1, .text_layers = 1, .multilingual = false, .type = TensorType::kQ8_0};
  ASSERT_TRUE(WriteWhisperModel(spec, path).ok());
  Result<models::WhisperFile> f = models::ReadWhisperFile(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->hparams.n_vocab, 51864);
  EXPECT_FALSE(models::IsMultilingual(f->hparams));
  EXPECT_EQ(f->vocab_count, 50256u);
  EXPECT_EQ(f->hparams.ftype, 2007);  // Q8_0 with quantization version 2
  EXPECT_EQ(f->tensors.size(), 11u + 15 + 24);
  EXPECT_EQ(f->FindTensor("decoder.token_embedding.weight")->type, 8u);
  EXPECT_EQ(f->FindTensor("encoder.conv1.weight")->type, 1u);  // kernels stay F16
}

TEST_F(WhisperModelTest, TranscriptIsFiveWordsPerSeed) {
  WhisperModelSpec spec;
  const std::string words = WhisperModelTranscript(spec);
  EXPECT_EQ(std::count(words.begin(), words.end(), ' '), 5) << words;
  EXPECT_EQ(words[0], ' ');
  spec.seed = 2;
  EXPECT_NE(WhisperModelTranscript(spec), words);
}

TEST_F(WhisperModelTest, SameSeedSameBytes) {
  WhisperModelSpec spec;
  ASSERT_TRUE(WriteWhisperModel(spec, TempPath("s1")).ok());
  ASSERT_TRUE(WriteWhisperModel(spec, TempPath("s2")).ok());
  spec.seed = 2;
  ASSERT_TRUE(WriteWhisperModel(spec, TempPath("s3")).ok());
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(TempPath("s1")), read(TempPath("s2")));
  EXPECT_NE(read(TempPath("s1")), read(TempPath("s3")));
}

TEST_F(WhisperModelTest, RejectsShapesWhisperCannotRun) {
  WhisperModelSpec spec;
  spec.heads = 3;
  EXPECT_EQ(WriteWhisperModel(spec, TempPath("bad")).code(), ErrorCode::kInvalidArgument);
  spec = WhisperModelSpec{.state = 48, .type = TensorType::kQ8_0};
  EXPECT_FALSE(WriteWhisperModel(spec, TempPath("bad")).ok());
  spec = WhisperModelSpec{.text_layers = 0};
  EXPECT_FALSE(WriteWhisperModel(spec, TempPath("bad")).ok());
  EXPECT_FALSE(fs::exists(TempPath("bad")));
}

}  // namespace
}  // namespace zest::tools
