#include "models/ollama_store.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"

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

std::string Sha(char c) { return std::string(64, c); }

class OllamaStoreTest : public ::testing::Test {
 protected:
  // A blob as Ollama stores one: blobs/sha256-<hex>. The bytes need not
  // hash to the name here: the reader does not hash (blob_digest does).
  void Blob(const std::string& sha, const std::string& bytes) {
    fs::create_directories(root_ / "blobs");
    std::ofstream(root_ / "blobs" / ("sha256-" + sha)) << bytes;
  }
  void Manifest(const std::string& rel, std::initializer_list<json> layers) {
    const fs::path file = root_ / "manifests" / rel;
    fs::create_directories(file.parent_path());
    json doc = {{"schemaVersion", 2},
                {"mediaType", "application/vnd.docker.distribution.manifest.v2+json"},
                {"config",
                 {{"mediaType", "application/vnd.docker.container.image.v1+json"},
                  {"digest", "sha256:" + Sha('c')},
                  {"size", 2}}},
                {"layers", ArrayOf(layers)}};
    std::ofstream(file) << doc.dump();
  }
  static json Layer(const std::string& kind, const std::string& sha) {
    return {{"mediaType", "application/vnd.ollama.image." + kind},
            {"digest", "sha256:" + sha},
            {"size", 1}};
  }

  zest::testing::TempDir tmp_{"ollama-store"};
  const fs::path root_ = tmp_.path();
};

TEST(OllamaNames, AreOllamasOwn) {
  EXPECT_EQ(OllamaStore::DisplayName("registry.ollama.ai", "library", "llama3.2", "3b"),
            "llama3.2:3b");
  EXPECT_EQ(OllamaStore::DisplayName("registry.ollama.ai", "library", "llama3.2", "latest"),
            "llama3.2");
  EXPECT_EQ(OllamaStore::DisplayName("registry.ollama.ai", "me", "tiny", "q8"), "me/tiny:q8");
  EXPECT_EQ(OllamaStore::DisplayName("hf.co", "org", "repo-GGUF", "Q4_K_M"),
            "hf.co/org/repo-GGUF:Q4_K_M");
}

TEST_F(OllamaStoreTest, ReadsManifestsAndTheirLayers) {
  Blob(Sha('1'), "GGUF model");
  Blob(Sha('2'), "GGUF projector");
  Blob(Sha('3'), "You are terse.");
  Blob(Sha('4'), R"({"temperature":0.25,"stop":["<end>"]})");
  Blob(Sha('5'), "{{ .Prompt }}");
  Manifest("registry.ollama.ai/library/seer/3b",
           {Layer("model", Sha('1')), Layer("projector", Sha('2')), Layer("system", Sha('3')),
            Layer("params", Sha('4')), Layer("template", Sha('5')), Layer("license", Sha('9'))});
  Manifest("registry.ollama.ai/library/seer/latest", {Layer("model", Sha('1'))});

  std::vector<OllamaModel> models = OllamaStore(root_).List();
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "seer");
  EXPECT_TRUE(models[0].projector.empty());
  EXPECT_TRUE(models[0].system.empty());
  const OllamaModel& m = models[1];
  EXPECT_EQ(m.name, "seer:3b");
  EXPECT_EQ(m.model, root_ / "blobs" / ("sha256-" + Sha('1')));
  EXPECT_EQ(m.model_sha256, Sha('1'));
  EXPECT_EQ(m.projector, root_ / "blobs" / ("sha256-" + Sha('2')));
  EXPECT_EQ(m.projector_sha256, Sha('2'));
  EXPECT_EQ(m.system, "You are terse.");
  EXPECT_EQ(m.parameters, json::parse(R"({"temperature":0.25,"stop":["<end>"]})"));
  EXPECT_TRUE(m.has_template);
  EXPECT_EQ(m.manifest, root_ / "manifests/registry.ollama.ai/library/seer/3b");
}

TEST_F(OllamaStoreTest, SkipsWhatIsNotAServableModel) {
  Blob(Sha('1'), "GGUF model");
  // No model layer (a safetensors import), a model blob not there, a bad
  // digest, a manifest that is not JSON, one at the wrong depth.
  Manifest("registry.ollama.ai/library/tensors/latest", {Layer("tensor", Sha('1'))});
  Manifest("registry.ollama.ai/library/missing/latest", {Layer("model", Sha('7'))});
  Manifest("registry.ollama.ai/library/baddigest/latest", {Layer("model", "1234")});
  Manifest("registry.ollama.ai/library/shallow", {Layer("model", Sha('1'))});
  fs::create_directories(root_ / "manifests/registry.ollama.ai/library/text");
  std::ofstream(root_ / "manifests/registry.ollama.ai/library/text/latest") << "not json";
  Manifest("registry.ollama.ai/library/ok/latest", {Layer("model", Sha('1'))});

  std::vector<OllamaModel> models = OllamaStore(root_).List();
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "ok");
}

TEST_F(OllamaStoreTest, NoDirectoryNoModels) {
  EXPECT_TRUE(OllamaStore(root_ / "absent").List().empty());
}

}  // namespace
}  // namespace zest::models
