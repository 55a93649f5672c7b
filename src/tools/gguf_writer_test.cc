#include "tools/gguf_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/testing/temp_dir.h"
#include "models/gguf_reader.h"
#include "tools/tensor_encoding.h"

namespace zest::tools {
namespace {

namespace fs = std::filesystem;
using models::GgufFile;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (static_cast<float>(i) - n / 2.0f) * 0.01f;
  return v;
}

void AddEveryMetadataType(GgufWriter& w) {
  w.AddString("s", "héllo");
  w.AddUint8("u8", 200);
  w.AddInt8("i8", -100);
  w.AddUint16("u16", 60000);
  w.AddInt16("i16", -30000);
  w.AddUint32("u32", 4000000000u);
  w.AddInt32("i32", -2000000000);
  w.AddUint64("u64", 1ull << 60);
  w.AddInt64("i64", -(1ll << 60));
  w.AddFloat32("f32", 0.5f);
  w.AddFloat64("f64", 1e-300);
  w.AddBool("b", true);
  w.AddStringArray("sa", {"x", "", "yz"});
  w.AddFloat32Array("fa", {1, 2, 3});
  w.AddInt32Array("ia", {1, 2, 3, 4});
}

TEST(GgufWriterTest, MetadataRoundTrips) {
  GgufWriter w;
  AddEveryMetadataType(w);
  zest::testing::TempDir tmp("writer-meta");
  const fs::path path = tmp.path() / "m.gguf";
  ASSERT_TRUE(w.Write(path).ok());
  Result<GgufFile> f = models::ReadGguf(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->version, 3u);
  EXPECT_EQ(f->metadata.size(), 16u);  // + general.alignment
  EXPECT_EQ(f->GetUint("general.alignment"), 32u);
  EXPECT_EQ(f->GetString("s"), "héllo");
  EXPECT_EQ(f->GetUint("u8"), 200u);
  EXPECT_EQ(std::get<int64_t>(f->Find("i8")->value), -100);
  EXPECT_EQ(f->GetUint("u16"), 60000u);
  EXPECT_EQ(std::get<int64_t>(f->Find("i16")->value), -30000);
  EXPECT_EQ(f->GetUint("u32"), 4000000000u);
  EXPECT_EQ(std::get<int64_t>(f->Find("i32")->value), -2000000000);
  EXPECT_EQ(f->GetUint("u64"), 1ull << 60);
  EXPECT_EQ(std::get<int64_t>(f->Find("i64")->value), -(1ll << 60));
  EXPECT_EQ(f->GetFloat("f32"), 0.5);
  EXPECT_EQ(f->GetFloat("f64"), 1e-300);
  EXPECT_TRUE(f->GetBool("b"));
  EXPECT_EQ(std::get<std::vector<std::string>>(f->Find("sa")->value),
            (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_EQ(f->GetArraySize("fa"), 3u);
  EXPECT_EQ(f->Find("fa")->element_type, models::kGgufFloat32);
  EXPECT_EQ(f->GetArraySize("ia"), 4u);
  const uint32_t expected_types[] = {
      models::kGgufUint8,   models::kGgufInt8,    models::kGgufUint16, models::kGgufInt16,
      models::kGgufUint32,  models::kGgufInt32,   models::kGgufUint64, models::kGgufInt64,
      models::kGgufFloat32, models::kGgufFloat64, models::kGgufBool};
  const char* keys[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "b"};
  for (size_t i = 0; i < std::size(keys); ++i) EXPECT_EQ(f->Find(keys[i])->type, expected_types[i]);
}

TEST(GgufWriterTest, TensorsRoundTrip) {
  GgufWriter w;
  w.AddString("general.architecture", "test");
  const std::vector<float> a = Ramp(3 * 5), b = Ramp(7 * 2), c = Ramp(64 * 3);
  w.AddTensor("a", {3, 5}, TensorType::kF32, a);
  w.AddTensor("b", {7, 2}, TensorType::kF16, b);
  w.AddTensor("c", {64, 3}, TensorType::kQ8_0, c);
  zest::testing::TempDir tmp("writer-tensors");
  const fs::path path = tmp.path() / "t.gguf";
  ASSERT_TRUE(w.Write(path).ok());
  const std::string bytes = ReadAll(path);
  EXPECT_EQ(bytes.size(), w.EncodedSize());
  Result<GgufFile> f = models::ParseGguf(bytes);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->tensors.size(), 3u);
  const auto& ta = f->tensors[0];
  const auto& tb = f->tensors[1];
  const auto& tc = f->tensors[2];
  EXPECT_EQ(ta.dims, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(tc.dims, (std::vector<uint64_t>{64, 3}));
  EXPECT_EQ(ta.type, 0u);
  EXPECT_EQ(tb.type, 1u);
  EXPECT_EQ(tc.type, 8u);
  EXPECT_EQ(ta.bytes, 60u);
  EXPECT_EQ(tb.bytes, 28u);
  EXPECT_EQ(tc.bytes, 6u * 34);
  EXPECT_EQ(ta.offset, 0u);
  EXPECT_EQ(tb.offset, 64u);
  EXPECT_EQ(tc.offset, 96u);
  EXPECT_EQ(f->data_offset % 32, 0u);
  EXPECT_EQ(f->data_offset + tc.offset + tc.bytes, bytes.size());

  auto data = [&](const models::GgufTensorInfo& t) {
    return std::span<const char>(bytes.data() + f->data_offset + t.offset, t.bytes);
  };
  std::vector<float> got_a(a.size());
  std::memcpy(got_a.data(), data(ta).data(), ta.bytes);
  EXPECT_EQ(got_a, a);
  const std::vector<float> got_b = DecodeF16(data(tb));
  ASSERT_EQ(got_b.size(), b.size());
  for (size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(got_b[i], b[i], std::fabs(b[i]) / 1024 + 1e-7);
  const std::vector<float> got_c = DecodeQ8_0(data(tc));
  ASSERT_EQ(got_c.size(), c.size());
  const float max_abs = 0.96f;  // |Ramp(192)| <= 0.96
  for (size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(got_c[i], c[i], max_abs / 127 * 0.5f + 1e-3f);
}

TEST(GgufWriterTest, WriteLeavesNoTemporaryFile) {
  zest::testing::TempDir tmp("writer-atomic");
  const fs::path& dir = tmp.path();
  GgufWriter w;
  w.AddString("k", "v");
  w.AddTensor("t", {4}, TensorType::kF32, {1, 2, 3, 4});
  ASSERT_TRUE(w.Write(dir / "a.gguf").ok());
  ASSERT_TRUE(w.Write(dir / "a.gguf").ok());  // replaces in place
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"a.gguf"});
  EXPECT_EQ(fs::status(dir / "a.gguf").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(GgufWriterTest, FailedWriteLeavesNothing) {
  zest::testing::TempDir tmp("writer-failed");
  const fs::path& dir = tmp.path();
  GgufWriter w;
  w.AddString("k", "v");
  // The target is an existing directory: rename fails after the data was written.
  fs::create_directories(dir / "taken" / "child");
  EXPECT_FALSE(w.Write(dir / "taken").ok());
  EXPECT_FALSE(w.Write(dir / "missing" / "x.gguf").ok());
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"taken"});
}

TEST(GgufWriterTest, ReportsMistakesAtWrite) {
  zest::testing::TempDir tmp("writer-mistakes");
  const fs::path& dir = tmp.path();
  auto expect_rejected = [&](GgufWriter& w, const char* what) {
    const Status s = w.Write(dir / "x.gguf");
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << what;
    EXPECT_FALSE(fs::exists(dir / "x.gguf")) << what;
  };
  GgufWriter duplicate;
  duplicate.AddUint32("k", 1);
  duplicate.AddUint32("k", 2);
  expect_rejected(duplicate, "duplicate key");
  GgufWriter alignment;
  alignment.AddUint32("general.alignment", 64);
  expect_rejected(alignment, "alignment key");
  GgufWriter count;
  count.AddTensor("t", {4, 2}, TensorType::kF32, {1, 2, 3});
  expect_rejected(count, "value count");
  GgufWriter q8;
  q8.AddTensor("t", {16}, TensorType::kQ8_0, std::vector<float>(16));
  expect_rejected(q8, "partial Q8_0 block");
  GgufWriter dims;
  dims.AddTensor("t", {1, 1, 1, 1, 1}, TensorType::kF32, {1});
  expect_rejected(dims, "5 dims");
}

TEST(GgufWriterTest, EveryTruncatedPrefixFailsToRead) {
  GgufWriter w;
  AddEveryMetadataType(w);
  w.AddTensor("a", {3}, TensorType::kF32, {1, 2, 3});
  w.AddTensor("c", {32}, TensorType::kQ8_0, Ramp(32));
  zest::testing::TempDir tmp("writer-truncated");
  const fs::path path = tmp.path() / "t.gguf";
  ASSERT_TRUE(w.Write(path).ok());
  const std::string bytes = ReadAll(path);
  ASSERT_TRUE(models::ParseGguf(bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(models::ParseGguf(std::string_view(bytes).substr(0, n)).ok()) << n;
  }
  // And through the file reader, at a few cut points.
  for (size_t n : {size_t{0}, size_t{3}, size_t{24}, bytes.size() / 2, bytes.size() - 1}) {
    const fs::path cut = path.parent_path() / "cut.gguf";
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, n);
    EXPECT_FALSE(models::ReadGguf(cut).ok()) << n;
  }
}

// Sparse tensors: the header describes 564 MB of MXFP4 data that the file
// holds as a hole, so the reader sizes it exactly while the disk holds KBs.
TEST(GgufWriterTest, SparseTensorsLeaveHoles) {
  zest::testing::TempDir tmp("writer-sparse");
  const fs::path& dir = tmp.path();
  GgufWriter w;
  w.AddString("general.architecture", "llama");
  w.AddTensor("small", {32}, TensorType::kF32, Ramp(32));
  // gpt-oss-120b's experts of one layer: 2880 x 2880 x 128 MXFP4 (17 bytes
  // per 32 elements).
  const uint64_t big = 2880ull * 2880 * 128 / 32 * 17;
  w.AddSparseTensor("blk.0.ffn_up_exps.weight", {2880, 2880, 128}, 39, big);
  w.AddSparseTensor("output.weight", {64, 64}, 1, 64 * 64 * 2);
  ASSERT_TRUE(w.Write(dir / "sparse.gguf").ok());

  auto file = models::ReadGguf(dir / "sparse.gguf");
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->tensors.size(), 3u);
  EXPECT_EQ(file->tensors[1].bytes, big);
  EXPECT_EQ(file->tensors[2].bytes, 64u * 64 * 2);
  EXPECT_EQ(file->file_size, w.EncodedSize());
  EXPECT_GT(file->file_size, big);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "sparse.gguf").c_str(), &st), 0);
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, 1u << 20);  // allocated: under 1 MiB
}

}  // namespace
}  // namespace zest::tools
