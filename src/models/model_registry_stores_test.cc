// ModelRegistry with Ollama's and LM Studio's stores: their names beside
// zest's own, an Ollama Modelfile as a preset, digests checked when served,
// nothing written to either store.
#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "models/model_registry.h"
#include "tools/synthetic_model.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A JSON array of the layers (a braced list of one json would be that json).
json ArrayOf(std::initializer_list<json> layers) {
  json out = json::array();
  for (const json& layer : layers) out.push_back(layer);
  return out;
}

class RegistryOtherStoresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    auto spec = tools::PresetSpec("tiny");
    ASSERT_TRUE(spec.ok());
    ASSERT_TRUE(tools::WriteSyntheticModel(*spec, root_ / "tiny.gguf").ok());
    registry_.SetOtherStores({root_ / "ollama"}, {root_ / "lmstudio"});
  }

  // Writes the blob named by its own sha256 (or `sha` when given) and
  // returns the hex digest the manifest names.
  std::string OllamaBlob(const fs::path& source, std::string sha = {}) {
    Result<std::string> real = FileSha256(source);
    EXPECT_TRUE(real.ok());
    if (sha.empty()) sha = *real;
    fs::create_directories(root_ / "ollama/blobs");
    fs::copy_file(source, root_ / "ollama/blobs" / ("sha256-" + sha),
                  fs::copy_options::overwrite_existing);
    return sha;
  }
  std::string TextBlob(const std::string& text) {
    const fs::path tmp = root_ / "text";
    std::ofstream(tmp) << text;
    return OllamaBlob(tmp);
  }
  void Manifest(const std::string& model, const std::string& tag,
                std::initializer_list<json> layers) {
    const fs::path file = root_ / "ollama/manifests/registry.ollama.ai/library" / model / tag;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << json{{"schemaVersion", 2}, {"layers", ArrayOf(layers)}}.dump();
  }
  static json Layer(const std::string& kind, const std::string& sha) {
    return {{"mediaType", "application/vnd.ollama.image." + kind}, {"digest", "sha256:" + sha}};
  }

  zest::testing::TempDir tmp_{"registry-stores"};
  const fs::path root_ = tmp_.path();
  // Reads the stores at each listing: the files a test writes are seen.
  ModelRegistry registry_{root_ / "models", root_ / "user_models.json"};
};

TEST_F(RegistryOtherStoresTest, OllamaModelsUnderOllamasNamesWithTheirModelfile) {
  const std::string model = OllamaBlob(root_ / "tiny.gguf");
  Manifest("tiny", "3b",
           {Layer("model", model), Layer("system", TextBlob("Answer in French.")),
            Layer("params", TextBlob(R"({"temperature":0.5})"))});
  Manifest("tiny", "latest", {Layer("model", model)});
  ModelRegistry& registry = registry_;

  Result<ModelEntry> tagged = registry.Find("tiny:3b");
  ASSERT_TRUE(tagged.ok()) << tagged.status().message();
  EXPECT_EQ(tagged->source, "ollama");
  EXPECT_TRUE(tagged->error.empty()) << tagged->error;
  EXPECT_EQ(tagged->path, root_ / "ollama/blobs" / ("sha256-" + model));  // in place
  EXPECT_EQ(tagged->origin, root_ / "ollama/manifests/registry.ollama.ai/library/tiny/3b");
  EXPECT_EQ(tagged->info.architecture, "llama");
  ASSERT_TRUE(tagged->preset.has_value());
  EXPECT_EQ(tagged->preset->from, "tiny:3b");
  EXPECT_EQ(tagged->preset->system, "Answer in French.");
  EXPECT_EQ(tagged->preset->parameters, json::parse(R"({"temperature":0.5})"));

  // "latest" is the bare name, and the tagged spelling finds it too.
  Result<ModelEntry> latest = registry.Find("tiny:latest");
  ASSERT_TRUE(latest.ok()) << latest.status().message();
  EXPECT_EQ(latest->name, "tiny");
  EXPECT_FALSE(latest->preset.has_value());

  // Read in place: never removed by zest.
  Status removed = registry.Remove(*tagged);
  EXPECT_FALSE(removed.ok());
  EXPECT_NE(removed.message().find("ollama rm"), std::string::npos) << removed.message();
  EXPECT_TRUE(fs::exists(tagged->path));
}

TEST_F(RegistryOtherStoresTest, ABlobThatDoesNotMatchItsDigestIsRefused) {
  const std::string wrong(64, 'e');
  OllamaBlob(root_ / "tiny.gguf", wrong);
  Manifest("bad", "latest", {Layer("model", wrong)});
  ModelRegistry& registry = registry_;
  // Listing does not hash: it does not know yet.
  std::vector<ModelEntry> all = registry.List();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].error.empty());
  Result<ModelEntry> found = registry.Find("bad");
  ASSERT_TRUE(found.ok());
  EXPECT_NE(found->error.find("does not match its digest"), std::string::npos) << found->error;
  // Once known, listings say so too.
  all = registry.List();
  EXPECT_NE(all[0].error.find("does not match its digest"), std::string::npos);
}

TEST_F(RegistryOtherStoresTest, AChangedBlobIsHashedAgain) {
  const std::string sha = OllamaBlob(root_ / "tiny.gguf");
  Manifest("tiny", "latest", {Layer("model", sha)});
  ModelRegistry& registry = registry_;
  ASSERT_TRUE(registry.Find("tiny").ok());
  EXPECT_TRUE(registry.Find("tiny")->error.empty());
  // One byte changed at its end, later mtime: refused.
  const fs::path blob = root_ / "ollama/blobs" / ("sha256-" + sha);
  {
    std::fstream f(blob, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
  fs::last_write_time(blob, fs::last_write_time(blob) + std::chrono::seconds(2));
  Result<ModelEntry> changed = registry.Find("tiny");
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(changed->error.find("does not match its digest"), std::string::npos);
}

TEST_F(RegistryOtherStoresTest, LmStudioModelsAndPrecedence) {
  fs::create_directories(root_ / "lmstudio/pub/Tiny-GGUF");
  fs::copy_file(root_ / "tiny.gguf", root_ / "lmstudio/pub/Tiny-GGUF/Tiny-Q8_0.gguf");
  // A model of zest's own keeps its name over another store's.
  const std::string sha = OllamaBlob(root_ / "tiny.gguf");
  Manifest("mine", "latest", {Layer("model", sha)});
  fs::copy_file(root_ / "tiny.gguf", root_ / "models/mine.gguf");
  ModelRegistry& registry = registry_;
  Result<ModelEntry> lm = registry.Find("pub/Tiny-GGUF:Q8_0");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  EXPECT_EQ(lm->source, "lmstudio");
  EXPECT_EQ(lm->path, root_ / "lmstudio/pub/Tiny-GGUF/Tiny-Q8_0.gguf");
  EXPECT_EQ(lm->origin, root_ / "lmstudio");
  EXPECT_TRUE(lm->digests.empty());
  EXPECT_EQ(registry.Find("mine")->source, "models_dir");
  EXPECT_FALSE(registry.Remove(*lm).ok());
  EXPECT_TRUE(fs::exists(lm->path));
}

TEST_F(RegistryOtherStoresTest, NoStoresNothingChanges) {
  ModelRegistry registry(root_ / "models", root_ / "user_models.json");
  registry.SetOtherStores({}, {});
  EXPECT_TRUE(registry.List().empty());
}

}  // namespace
}  // namespace zest::models
