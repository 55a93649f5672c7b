#include "models/store_naming.h"

#include <gtest/gtest.h>

namespace zest::models {
namespace {

StoreFile File(const std::string& path, const std::string& repo = "org/repo") {
  return {repo, "c0ffee", path, "/store/" + path, 1};
}

TEST(StoreNamingTest, QuantLabelsFromFileNames) {
  EXPECT_EQ(QuantLabel("Qwen3-8B-Q4_K_M.gguf"), "Q4_K_M");
  EXPECT_EQ(QuantLabel("gpt-oss-20b-mxfp4.gguf"), "MXFP4");
  EXPECT_EQ(QuantLabel("nomic-embed-text-v1.5.Q8_0.gguf"), "Q8_0");
  EXPECT_EQ(QuantLabel("ggml-model-f16.gguf"), "F16");
  EXPECT_EQ(QuantLabel("model-bf16.gguf"), "BF16");
  EXPECT_EQ(QuantLabel("Qwen3-8B-UD-IQ4_XS.gguf"), "IQ4_XS");
  EXPECT_EQ(QuantLabel("Q4_K_M/big-00001-of-00003.gguf"), "Q4_K_M");
  EXPECT_EQ(QuantLabel("gpt-oss-120b-mxfp4-00001-of-00003.gguf"), "MXFP4");
  EXPECT_EQ(QuantLabel("Qwen3-8B.gguf"), "");
  EXPECT_EQ(QuantLabel("model.gguf"), "");
  EXPECT_TRUE(SameQuant("q4_k_m", "Q4_K_M"));
}

// whisper.cpp's repo: ggml-<name>.bin, one speech model per file, named by
// <name> as written; other .bin files are not models.
TEST(StoreNamingTest, SpeechModelsAreNamedByTheirWhisperName) {
  EXPECT_TRUE(IsSpeechModelFile("ggml-base.en.bin"));
  EXPECT_TRUE(IsSpeechModelFile("models/ggml-large-v3-turbo-q8_0.bin"));
  EXPECT_FALSE(IsSpeechModelFile("pytorch_model.bin"));
  EXPECT_FALSE(IsSpeechModelFile("ggml-.bin"));
  EXPECT_FALSE(IsSpeechModelFile("ggml-base.en-encoder.mlmodelc.zip"));
  EXPECT_TRUE(IsModelFile("x-Q4_K_M.gguf"));
  EXPECT_FALSE(IsModelFile("README.md"));
  EXPECT_EQ(ModelLabel("ggml-base.en.bin"), "base.en");
  EXPECT_EQ(ModelLabel("ggml-tiny-q5_1.bin"), "tiny-q5_1");
  EXPECT_EQ(ModelLabel("m-Q8_0.gguf"), "Q8_0");

  std::vector<StoreFile> files = {File("ggml-base.en.bin", "ggerganov/whisper.cpp"),
                                  File("ggml-tiny-q5_1.bin", "ggerganov/whisper.cpp"),
                                  File("ggml-base-q5_1.bin", "ggerganov/whisper.cpp")};
  std::vector<StoreModel> models = GroupStoreModels(files);
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].name, "ggerganov/whisper.cpp:base-q5_1");
  EXPECT_EQ(models[1].name, "ggerganov/whisper.cpp:base.en");
  EXPECT_EQ(models[1].files.front().path, "ggml-base.en.bin");
  EXPECT_EQ(models[2].name, "ggerganov/whisper.cpp:tiny-q5_1");
  EXPECT_EQ(StoreModelName(files[0], files), "ggerganov/whisper.cpp:base.en");
  // The same name in two folders: the paths name them, without ".bin".
  std::vector<StoreFile> twice = {File("a/ggml-tiny.bin"), File("b/ggml-tiny.bin")};
  EXPECT_EQ(GroupStoreModels(twice)[0].name, "org/repo/a/ggml-tiny");
}

TEST(StoreNamingTest, ShardsAndProjectors) {
  auto shard = ParseShard("dir/m-Q8_0-00002-of-00003.gguf");
  ASSERT_TRUE(shard.has_value());
  EXPECT_EQ(shard->index, 2);
  EXPECT_EQ(shard->count, 3);
  EXPECT_EQ(shard->base, "dir/m-Q8_0");
  EXPECT_FALSE(ParseShard("m-00004-of-00003.gguf").has_value());
  EXPECT_FALSE(ParseShard("m-1-of-3.gguf").has_value());
  EXPECT_TRUE(IsMmproj("mmproj-model-f16.gguf"));
  EXPECT_TRUE(IsMmproj("sub/Model-mmproj-F16.gguf"));
  EXPECT_FALSE(IsMmproj("mmproj/model.gguf"));
}

TEST(StoreNamingTest, UniqueQuantNamesWithMmprojAttached) {
  std::vector<StoreFile> files = {File("g-Q4_K_M.gguf"), File("g-Q8_0.gguf"),
                                  File("mmproj-model-f32.gguf"), File("mmproj-model-f16.gguf")};
  std::vector<StoreModel> models = GroupStoreModels(files);
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "org/repo:Q4_K_M");
  EXPECT_EQ(models[1].name, "org/repo:Q8_0");
  ASSERT_EQ(models[0].mmprojs.size(), 2u);
  EXPECT_EQ(models[0].mmprojs[0].path, "mmproj-model-f16.gguf");
  EXPECT_EQ(StoreModelName(files[1], files), "org/repo:Q8_0");
  EXPECT_EQ(StoreModelName(files[2], files), "");
}

TEST(StoreNamingTest, AmbiguousOrMissingLabelsUsePaths) {
  std::vector<StoreFile> files = {File("a/m-Q4_K_M.gguf"), File("b/m-Q4_K_M.gguf"),
                                  File("plain.gguf"), File("x-F16.gguf")};
  std::vector<StoreModel> models = GroupStoreModels(files);
  ASSERT_EQ(models.size(), 4u);
  EXPECT_EQ(models[0].name, "org/repo/a/m-Q4_K_M");
  EXPECT_EQ(models[1].name, "org/repo/b/m-Q4_K_M");
  EXPECT_EQ(models[2].name, "org/repo/plain");
  EXPECT_EQ(models[3].name, "org/repo:F16");
}

TEST(StoreNamingTest, ShardSetIsOneModelLoadedFromTheFirstShard) {
  std::vector<StoreFile> files = {File("Q8_0/m-00002-of-00002.gguf"),
                                  File("Q8_0/m-00001-of-00002.gguf"), File("m-Q4_K_M.gguf"),
                                  File("half-00001-of-00002.gguf")};
  std::vector<StoreModel> models = GroupStoreModels(files);
  ASSERT_EQ(models.size(), 2u);  // the incomplete "half" set is not a model
  EXPECT_EQ(models[0].name, "org/repo:Q4_K_M");
  EXPECT_EQ(models[1].name, "org/repo:Q8_0");
  ASSERT_EQ(models[1].files.size(), 2u);
  EXPECT_EQ(models[1].files[0].path, "Q8_0/m-00001-of-00002.gguf");
  EXPECT_EQ(StoreModelName(files[0], files), "org/repo:Q8_0");
  // A shard set still being downloaded is named as it will be once complete.
  EXPECT_EQ(StoreModelName(files[3], files), "org/repo/half-00001-of-00002");
}

TEST(StoreNamingTest, SamePathInTwoSnapshotsCountsOnce) {
  StoreFile newer = File("m-Q4_K_M.gguf");
  StoreFile older = newer;
  older.commit = "0ld";
  std::vector<StoreModel> models = GroupStoreModels({newer, older});
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "org/repo:Q4_K_M");
  EXPECT_EQ(models[0].files[0].commit, "c0ffee");
}

}  // namespace
}  // namespace zest::models
