#include "models/whisper_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "models/gguf_test_bytes.h"

namespace zest::models {
namespace {

using testing::GgufBytes;

// A small valid file: hparams of a multilingual model, a 2 x 3 filter bank,
// two tokens, and two tensors (F32 {2, 3}, Q8_0 {32}).
std::string ValidFile() {
  GgufBytes b;
  b.U32(kGgmlFileMagic);
  for (int32_t v : {51865, 1500, 64, 1, 2, 448, 64, 1, 2, 80, 1}) b.Pod(v);
  b.Pod<int32_t>(2).Pod<int32_t>(3);
  for (int i = 0; i < 6; ++i) b.Pod(0.5f);
  b.Pod<int32_t>(2).U32(1).Raw(" ").U32(3).Raw("abc");
  b.Pod<int32_t>(2).Pod<int32_t>(7).Pod<int32_t>(0).Pod<int32_t>(2).Pod<int32_t>(3).Raw("t.f32_x");
  b.Raw(std::string(24, '\x01'));
  b.Pod<int32_t>(1).Pod<int32_t>(4).Pod<int32_t>(8).Pod<int32_t>(32).Raw("t.q8");
  b.Raw(std::string(34, '\x02'));
  return b.str();
}

TEST(WhisperFileTest, ParsesValidFile) {
  const std::string bytes = ValidFile();
  Result<WhisperFile> file = ParseWhisperFile(bytes);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->hparams.n_vocab, 51865);
  EXPECT_EQ(file->hparams.n_audio_ctx, 1500);
  EXPECT_EQ(file->hparams.n_text_layer, 2);
  EXPECT_EQ(file->hparams.n_mels, 80);
  EXPECT_EQ(file->hparams.ftype, 1);
  EXPECT_TRUE(IsMultilingual(file->hparams));
  EXPECT_EQ(file->mel_bands, 2);
  EXPECT_EQ(file->fft_bins, 3);
  EXPECT_EQ(file->vocab_count, 2u);
  ASSERT_EQ(file->tensors.size(), 2u);
  EXPECT_EQ(file->tensors[0].name, "t.f32_x");
  EXPECT_EQ(file->tensors[0].dims, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(file->tensors[0].bytes, 24u);
  EXPECT_EQ(file->tensors[1].type, 8u);
  EXPECT_EQ(file->tensors[1].bytes, 34u);
  EXPECT_EQ(file->tensors[1].offset + 34, bytes.size());
  EXPECT_EQ(file->FindTensor("t.q8"), &file->tensors[1]);
  EXPECT_EQ(file->ParameterCount(), 6u + 32u);
  EXPECT_EQ(file->file_size, bytes.size());
}

TEST(WhisperFileTest, EveryTruncatedPrefixButTheTensorBoundaryIsAnError) {
  const std::string bytes = ValidFile();
  const size_t first_tensor_end = bytes.size() - (4 * 4 + 4 + 34);
  for (size_t n = 0; n < bytes.size(); ++n) {
    // Tensors run to the end of the file: a file cut right after a whole
    // tensor parses (whisper.cpp then finds a tensor missing).
    if (n == first_tensor_end) continue;
    EXPECT_FALSE(ParseWhisperFile(std::string_view(bytes).substr(0, n)).ok()) << "prefix " << n;
  }
  EXPECT_EQ(ParseWhisperFile(std::string_view(bytes).substr(0, first_tensor_end))->tensors.size(),
            1u);
}

TEST(WhisperFileTest, RejectsOtherFilesAndDamage) {
  std::string bytes = ValidFile();
  EXPECT_FALSE(ParseWhisperFile("GGUF" + bytes.substr(4)).ok());
  std::string bad_type = bytes;
  bad_type[bytes.size() - 34 - 4 - 4 - 4] = 99;  // the Q8_0 tensor's type
  EXPECT_FALSE(ParseWhisperFile(bad_type).ok());
  std::string huge_vocab = bytes;
  const size_t vocab_at = 4 + 11 * 4 + 2 * 4 + 6 * 4;
  huge_vocab.replace(vocab_at, 4, std::string("\xff\xff\xff\x7f", 4));
  EXPECT_EQ(ParseWhisperFile(huge_vocab).status().code(), ErrorCode::kInvalidArgument);
}

TEST(WhisperFileTest, ReadsFromDiskAndChecksTheMagic) {
  zest::testing::TempDir tmp("whisper-file");
  const std::filesystem::path& dir = tmp.path();
  std::ofstream(dir / "whisper_valid.bin", std::ios::binary) << ValidFile();
  std::ofstream(dir / "whisper_other.bin", std::ios::binary) << "GGUF....";
  EXPECT_TRUE(ReadWhisperFile(dir / "whisper_valid.bin").ok());
  EXPECT_TRUE(HasGgmlMagic(dir / "whisper_valid.bin"));
  EXPECT_FALSE(HasGgmlMagic(dir / "whisper_other.bin"));
  EXPECT_FALSE(HasGgmlMagic(dir / "missing.bin"));
  EXPECT_EQ(ReadWhisperFile(dir / "missing.bin").status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace zest::models
