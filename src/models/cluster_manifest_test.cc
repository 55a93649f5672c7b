#include "models/cluster_manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

class ManifestTest : public ::testing::Test {
 protected:
  Result<std::vector<ManifestEntry>> Read(const std::string& text) {
    fs::path file = dir_ / "models.toml";
    std::ofstream(file) << text;
    return ReadManifest(file, nullptr);
  }
  zest::testing::TempDir tmp_{"manifest"};
  const fs::path dir_ = tmp_.path();
};

const std::string kSha(64, 'a');

TEST_F(ManifestTest, PullsAndFilesInOrder) {
  auto entries = Read(
      "[[model]]\npull = \"org/repo:Q4_K_M@0123abcd\"\n\n[[model]]\nfile = "
      "\"/srv/m.gguf\"\nsha256 = \"" +
      std::string(64, 'A') + "\"\n");
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].pull, "org/repo:Q4_K_M@0123abcd");
  EXPECT_EQ((*entries)[0].Describe(), "org/repo:Q4_K_M@0123abcd");
  EXPECT_EQ((*entries)[1].file, "/srv/m.gguf");
  EXPECT_EQ((*entries)[1].sha256, kSha);  // lower-cased
  auto empty = Read("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_F(ManifestTest, RefusesWhatItCannotActOn) {
  const std::pair<std::string, std::string> cases[] = {
      {"[[model]]\npull = \"org/repo\"\nfile = \"/a.gguf\"\n", "either pull"},
      {"[[model]]\n", "either pull"},
      {"[[model]]\npull = \"org/../x\"\n", "model 1"},
      {"[[model]]\nfile = \"rel/a.gguf\"\nsha256 = \"" + kSha + "\"\n", "absolute"},
      {"[[model]]\nfile = \"/a.gguf\"\n", "sha256"},
      {"[[model]]\nfile = \"/a.gguf\"\nsha256 = \"abc\"\n", "sha256"},
      {"[[model]]\npull = \"org/repo\"\nsha256 = \"" + kSha + "\"\n", "sha256 belongs"},
      {"[[model]]\npull = \"org/repo\"\nquant = \"Q8_0\"\n", "unknown key 'quant'"},
      {"[[model]]\npull = 3\n", "must be a string"},
      {"models = []\n", "only [[model]]"},
      {"[[model]\n", "models.toml:1"},
  };
  for (const auto& [text, why] : cases) {
    auto entries = Read(text);
    ASSERT_FALSE(entries.ok()) << text;
    EXPECT_NE(entries.status().message().find(why), std::string::npos)
        << text << " -> " << entries.status().message();
  }
}

}  // namespace
}  // namespace zest::models
