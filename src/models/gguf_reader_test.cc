#include "models/gguf_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "models/gguf_test_bytes.h"

namespace zest::models {
namespace {

using testing::GgufBytes;

// A small valid file: five key/values and two tensors (F32 {4}, Q8_0 {32, 2}).
std::string ValidFile() {
  GgufBytes b;
  b.Header(2, 5);
  b.Str("general.architecture").U32(kGgufString).Str("llama");
  b.Str("llama.block_count").U32(kGgufUint32).U32(3);
  b.Str("tokenizer.ggml.tokens").U32(kGgufArray).U32(kGgufString).U64(2).Str("a").Str("bc");
  b.Str("tokenizer.ggml.scores").U32(kGgufArray).U32(kGgufFloat32).U64(2).Pod(1.0f).Pod(2.0f);
  b.Str("general.flag").U32(kGgufBool).Pod<uint8_t>(1);
  b.Str("t.f32").U32(1).U64(4).U32(0).U64(0);
  b.Str("t.q8").U32(2).U64(32).U64(2).U32(8).U64(32);
  b.PadTo(32);
  b.Raw(std::string(16, '\x01')).PadTo(32).Raw(std::string(68, '\x02'));
  return b.str();
}

TEST(GgufReaderTest, ParsesValidFile) {
  const std::string bytes = ValidFile();
  Result<GgufFile> file = ParseGguf(bytes);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->version, 3u);
  EXPECT_EQ(file->Architecture(), "llama");
  EXPECT_EQ(file->ArchUint("block_count"), 3u);
  EXPECT_TRUE(file->GetBool("general.flag"));
  EXPECT_EQ(file->GetArraySize("tokenizer.ggml.scores"), 2u);
  const auto& tokens =
      std::get<std::vector<std::string>>(file->Find("tokenizer.ggml.tokens")->value);
  EXPECT_EQ(tokens, (std::vector<std::string>{"a", "bc"}));
  ASSERT_EQ(file->tensors.size(), 2u);
  EXPECT_EQ(file->tensors[0].bytes, 16u);
  EXPECT_EQ(file->tensors[1].bytes, 68u);
  EXPECT_EQ(file->tensors[1].dims, (std::vector<uint64_t>{32, 2}));
  EXPECT_EQ(file->data_offset % 32, 0u);
  EXPECT_EQ(file->data_offset + 32 + 68, bytes.size());
  EXPECT_EQ(file->FindTensor("t.q8"), &file->tensors[1]);
}

TEST(GgufReaderTest, EveryTruncatedPrefixIsAnError) {
  const std::string bytes = ValidFile();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(ParseGguf(std::string_view(bytes).substr(0, n)).ok()) << "prefix " << n;
  }
}

TEST(GgufReaderTest, ReadsFromDiskAndReportsMissingFiles) {
  zest::testing::TempDir dir("reader");
  const auto path = dir.path() / "reader_valid.gguf";
  std::ofstream(path, std::ios::binary) << ValidFile();
  Result<GgufFile> file = ReadGguf(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->tensors.size(), 2u);
  std::filesystem::remove(path);
  Result<GgufFile> missing = ReadGguf(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

struct HostileCase {
  const char* name;
  std::string bytes;
  const char* reason;  // part of the expected error message
};

std::vector<HostileCase> HostileCases() {
  constexpr uint64_t kHuge = 1ull << 62;
  std::vector<HostileCase> c;
  c.push_back({"wrong magic", GgufBytes().Raw("GGML").U32(3).U64(0).U64(0).str(), "bad magic"});
  c.push_back({"version 1", GgufBytes().Header(0, 0, 1).str(), "version 1"});
  c.push_back({"version 4", GgufBytes().Header(0, 0, 4).str(), "version 4"});
  c.push_back({"huge key length", GgufBytes().Header(0, 1).U64(kHuge).Raw(std::string(16, 0)).str(),
               "key length"});
  c.push_back({"huge string value",
               GgufBytes().Header(0, 1).Str("k").U32(kGgufString).U64(kHuge).Raw("abc").str(),
               "string value length"});
  c.push_back({"huge string array count",
               GgufBytes().Header(0, 1).Str("k").U32(kGgufArray).U32(kGgufString).U64(kHuge).str(),
               "too many array strings"});
  c.push_back({"array count overflow",  // count * 4 wraps around 2^64
               GgufBytes().Header(0, 1).Str("k").U32(kGgufArray).U32(kGgufUint32).U64(kHuge).str(),
               "exceeds the file"});
  c.push_back({"nested array",
               GgufBytes().Header(0, 1).Str("k").U32(kGgufArray).U32(kGgufArray).U64(1).str(),
               "element type 9"});
  c.push_back({"unknown value type", GgufBytes().Header(0, 1).Str("k").U32(13).U64(0).str(),
               "value type 13"});
  c.push_back({"bool out of range",
               GgufBytes().Header(0, 1).Str("k").U32(kGgufBool).Pod<uint8_t>(7).str(),
               "bool value"});
  c.push_back({"huge kv count", GgufBytes().Header(0, kHuge).str(), "too many key/values"});
  c.push_back({"huge tensor count", GgufBytes().Header(kHuge, 0).str(), "too many tensors"});
  c.push_back({"duplicate key",
               GgufBytes()
                   .Header(0, 2)
                   .Str("k")
                   .U32(kGgufUint8)
                   .Pod<uint8_t>(1)
                   .Str("k")
                   .U32(kGgufUint8)
                   .Pod<uint8_t>(1)
                   .str(),
               "duplicate"});
  c.push_back({"bad alignment",
               GgufBytes().Header(0, 1).Str("general.alignment").U32(kGgufUint32).U32(24).str(),
               "alignment"});
  c.push_back({"n_dims 5",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(5)
                   .U64(1)
                   .U64(1)
                   .U64(1)
                   .U64(1)
                   .U64(1)
                   .U32(0)
                   .U64(0)
                   .PadTo(32)
                   .Raw(std::string(64, 0))
                   .str(),
               "5 dimensions"});
  c.push_back({"n_dims 0", GgufBytes().Header(1, 0).Str("t").U32(0).U32(0).U64(0).PadTo(32).str(),
               "0 dimensions"});
  c.push_back({"negative dim",
               GgufBytes().Header(1, 0).Str("t").U32(1).U64(~0ull).U32(0).U64(0).str(),
               "negative"});
  c.push_back({"size overflow",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(2)
                   .U64(1ull << 40)
                   .U64(1ull << 40)
                   .U32(0)
                   .U64(0)
                   .PadTo(32)
                   .str(),
               "overflows"});
  c.push_back({"unknown tensor type",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(1)
                   .U64(1)
                   .U32(4)
                   .U64(0)
                   .PadTo(32)
                   .Raw(std::string(32, 0))
                   .str(),
               "unknown ggml type"});
  c.push_back({"partial Q8_0 block",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(1)
                   .U64(16)
                   .U32(8)
                   .U64(0)
                   .PadTo(32)
                   .Raw(std::string(64, 0))
                   .str(),
               "block size"});
  c.push_back({"offset beyond EOF",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(1)
                   .U64(4)
                   .U32(0)
                   .U64(1ull << 40)
                   .PadTo(32)
                   .Raw(std::string(16, 0))
                   .str(),
               "beyond the end"});
  c.push_back({"offset + size wraps",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(1)
                   .U64(4)
                   .U32(0)
                   .U64(~0ull - 31)
                   .PadTo(32)
                   .Raw(std::string(16, 0))
                   .str(),
               "beyond the end"});
  c.push_back({"misaligned offset",
               GgufBytes()
                   .Header(1, 0)
                   .Str("t")
                   .U32(1)
                   .U64(4)
                   .U32(0)
                   .U64(4)
                   .PadTo(32)
                   .Raw(std::string(64, 0))
                   .str(),
               "not aligned"});
  return c;
}

TEST(GgufReaderTest, RejectsHostileHeaders) {
  for (const HostileCase& c : HostileCases()) {
    Result<GgufFile> file = ParseGguf(c.bytes);
    EXPECT_FALSE(file.ok()) << c.name;
    EXPECT_NE(file.status().message().find(c.reason), std::string::npos)
        << c.name << ": " << file.status().message();
    EXPECT_EQ(file.status().code(), ErrorCode::kInvalidArgument) << c.name;
  }
}

TEST(GgufReaderTest, AcceptsVersion2) {
  const std::string bytes =
      GgufBytes().Header(0, 1, 2).Str("k").U32(kGgufInt8).Pod<int8_t>(-3).str();
  Result<GgufFile> file = ParseGguf(bytes);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(std::get<int64_t>(file->Find("k")->value), -3);
  EXPECT_EQ(file->GetUint("k", 9), 9u);  // negative: not a uint
}

GgufFile FileWithArch(const std::string& arch) {
  GgufFile file;
  file.metadata["general.architecture"].value = arch;
  file.metadata["general.architecture"].type = kGgufString;
  return file;
}

void SetUint(GgufFile& file, const std::string& key, uint64_t v) {
  file.metadata[key].value = v;
  file.metadata[key].type = kGgufUint32;
}

TEST(DescribeTest, SummarisesALlamaModel) {
  GgufFile file = FileWithArch("llama");
  SetUint(file, "llama.block_count", 2);
  SetUint(file, "llama.attention.head_count", 4);
  SetUint(file, "general.file_type", 15);
  file.tensors.push_back({"a", {4, 8}, 0, 0, 128});
  file.tensors.push_back({"b", {32}, 8, 128, 34});
  ModelInfo info = Describe(file);
  EXPECT_EQ(info.parameter_count, 64u);
  EXPECT_EQ(info.tensor_bytes, 162u);
  EXPECT_EQ(info.block_count, 2u);
  EXPECT_EQ(info.head_count_kv, 4u);  // defaults to head_count
  EXPECT_EQ(info.file_type, "Q4_K_M");
  EXPECT_FALSE(info.embedding);
  EXPECT_FALSE(info.has_chat_template);
}

// Found by tests/fuzz/gguf_fuzzer: a header claiming 2^32 blocks made the
// per-block tables allocate 32 GiB.
TEST(DescribeTest, AHostileBlockCountIsBoundedByTheTensors) {
  GgufFile file = FileWithArch("llama");
  SetUint(file, "llama.block_count", 4294967295u);
  file.tensors.push_back({"blk.0.attn_q.weight", {4, 8}, 0, 0, 128});
  ModelInfo info = Describe(file);
  EXPECT_EQ(info.block_count, 1u);
  EXPECT_EQ(info.layer_bytes.size(), 1u);
  EXPECT_EQ(info.layer_bytes[0], 128u);
}

TEST(DescribeTest, DetectsEmbeddingModels) {
  EXPECT_TRUE(Describe(FileWithArch("bert")).embedding);
  EXPECT_TRUE(Describe(FileWithArch("nomic-bert")).embedding);
  EXPECT_TRUE(Describe(FileWithArch("t5encoder")).embedding);
  EXPECT_FALSE(Describe(FileWithArch("qwen2")).embedding);
  GgufFile pooled = FileWithArch("qwen2");
  SetUint(pooled, "qwen2.pooling_type", 1);
  EXPECT_TRUE(Describe(pooled).embedding);
  SetUint(pooled, "qwen2.pooling_type", 0);
  EXPECT_FALSE(Describe(pooled).embedding);
}

}  // namespace
}  // namespace zest::models
