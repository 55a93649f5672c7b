#include "models/safetensors_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/testing/temp_dir.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

// A whole safetensors file: the u64 length, the header, `data_bytes` zeros.
std::string FileBytes(const nlohmann::json& header, uint64_t data_bytes) {
  const std::string json = header.dump();
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((json.size() >> (8 * i)) & 0xff));
  return out + json + std::string(data_bytes, '\0');
}

nlohmann::json Tensor(const char* dtype, std::vector<uint64_t> shape, uint64_t begin,
                      uint64_t end) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
}

// An SD 1.x checkpoint's shape in miniature: a UNet tensor (F16 2x4) and a
// VAE one (F32 2).
nlohmann::json StableDiffusionHeader() {
  return {{"model.diffusion_model.input_blocks.0.0.weight", Tensor("F16", {2, 4}, 0, 16)},
          {"first_stage_model.decoder.conv_in.bias", Tensor("F32", {2}, 16, 24)},
          {"__metadata__", {{"modelspec.title", "tiny sd"}}}};
}

// A file holding `bytes` in a directory of its own, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes) { std::ofstream(path_, std::ios::binary) << bytes; }
  const fs::path& path() const { return path_; }

 private:
  zest::testing::TempDir dir_{"safetensors"};
  fs::path path_ = dir_.path() / "model.safetensors";
};

TEST(SafetensorsFileTest, ReadsTheHeaderOfAWholeFile) {
  TempFile file(FileBytes(StableDiffusionHeader(), 24));
  Result<SafetensorsFile> read = ReadSafetensorsFile(file.path());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->tensors.size(), 2u);
  EXPECT_EQ(read->metadata.at("modelspec.title"), "tiny sd");
  EXPECT_EQ(read->file_size, fs::file_size(file.path()));
}

TEST(SafetensorsFileTest, ACutOffFileIsAnError) {
  TempFile file(FileBytes(StableDiffusionHeader(), 20));  // 4 bytes short
  Result<SafetensorsFile> read = ReadSafetensorsFile(file.path());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("past the end"), std::string::npos)
      << read.status().message();
}

TEST(SafetensorsFileTest, RejectsWhatIsNotSafetensors) {
  TempFile gguf(std::string("GGUF\3\0\0\0", 8) + std::string(64, '\0'));
  EXPECT_FALSE(ReadSafetensorsFile(gguf.path()).ok());
  EXPECT_FALSE(ParseSafetensors("[1, 2]", 0).ok());
  EXPECT_FALSE(ParseSafetensors("{}", 0).ok());  // no tensors
  // A range that does not match the shape, an unknown dtype.
  EXPECT_FALSE(ParseSafetensors(nlohmann::json{{"t", Tensor("F16", {3}, 0, 4)}}.dump(), 4).ok());
  EXPECT_FALSE(ParseSafetensors(nlohmann::json{{"t", Tensor("Q4", {4}, 0, 4)}}.dump(), 4).ok());
}

TEST(SafetensorsFileTest, TellsDiffusionArchitecturesByTheirTensors) {
  auto arch = [](const char* name) {
    Result<SafetensorsFile> f =
        ParseSafetensors(nlohmann::json{{name, Tensor("F16", {1}, 0, 2)}}.dump(), 2);
    return f.ok() ? DiffusionArchitecture(*f) : "error";
  };
  EXPECT_EQ(arch("model.diffusion_model.input_blocks.0.0.weight"), "stable-diffusion");
  EXPECT_EQ(arch("model.diffusion_model.double_blocks.0.img_attn.qkv.weight"), "flux");
  EXPECT_EQ(arch("model.diffusion_model.joint_blocks.0.x_block.attn.qkv.weight"), "sd3");
  EXPECT_EQ(arch("model.layers.0.self_attn.q_proj.weight"), "");  // a language model
}

TEST(SafetensorsFileTest, DescribesAnImageModel) {
  Result<SafetensorsFile> f = ParseSafetensors(StableDiffusionHeader().dump(), 24);
  ASSERT_TRUE(f.ok());
  f->file_size = 1000;
  Result<ModelInfo> info = DescribeDiffusionModel(*f);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_TRUE(info->image);
  EXPECT_FALSE(info->speech);
  EXPECT_EQ(info->architecture, "stable-diffusion");
  EXPECT_EQ(info->parameter_count, 10u);
  EXPECT_EQ(info->tensor_bytes, 24u);
  EXPECT_EQ(info->file_type, "F16");  // 16 of the 24 bytes
  EXPECT_EQ(info->name, "tiny sd");
  EXPECT_EQ(info->file_size, 1000u);

  Result<SafetensorsFile> llm = ParseSafetensors(
      nlohmann::json{{"model.embed_tokens.weight", Tensor("BF16", {2}, 0, 4)}}.dump(), 4);
  ASSERT_TRUE(llm.ok());
  EXPECT_FALSE(DescribeDiffusionModel(*llm).ok());
}

}  // namespace
}  // namespace zest::models
