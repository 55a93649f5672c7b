// ModelRegistry with the Hugging Face store and a catalog: naming, resolution
// order, downloaded catalog models, and removal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "models/model_registry.h"
#include "tools/synthetic_model.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";
const std::string kOldCommit = "fedcba9876543210fedcba9876543210fedcba98";

std::string Sha(char c) { return std::string(64, c); }

constexpr const char* kCatalogJson = R"({"models":[
  {"name":"Tiny-GGUF","repo":"org/tiny-GGUF","quant":"Q8_0","recipe":"llamacpp",
   "labels":["chat"],"size_bytes":1000,"draft":"Remote-GGUF"},
  {"name":"Vision-GGUF","repo":"org/vision-GGUF","quant":"Q4_K_M","mmproj":"mmproj-F32.gguf",
   "recipe":"llamacpp","labels":["chat","vision"],"size_bytes":1000},
  {"name":"Remote-GGUF","repo":"org/remote-GGUF","quant":"Q4_K_M","recipe":"llamacpp",
   "size_bytes":5},
  {"name":"whisper-x","repo":"ggerganov/whisper.cpp","file":"ggml-x.bin","recipe":"whispercpp",
   "labels":["transcription"],"size_bytes":5}
]})";

class RegistryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    fs::create_directories(root_ / "hub");
    auto parsed = Catalog::Parse(kCatalogJson);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    catalog_ = std::move(parsed).value();
  }

  ModelRegistry Registry() {
    return ModelRegistry(root_ / "models", root_ / "user_models.json", root_ / "hub", &catalog_);
  }

  fs::path Blob(const std::string& dir, const std::string& sha) {
    fs::path blob = root_ / "hub" / dir / "blobs" / sha;
    if (!fs::exists(blob)) {
      fs::create_directories(blob.parent_path());
      auto spec = tools::PresetSpec("tiny");
      EXPECT_TRUE(spec.ok());
      EXPECT_TRUE(tools::WriteSyntheticModel(*spec, blob).ok());
    }
    return blob;
  }

  // A snapshot entry as huggingface-cli writes it: relative link to the blob.
  void Link(const std::string& dir, const std::string& commit, const std::string& path,
            const std::string& sha) {
    Blob(dir, sha);
    fs::path link = root_ / "hub" / dir / "snapshots" / commit / path;
    fs::create_directories(link.parent_path());
    std::string up = "../../";
    for (char c : path) up += c == '/' ? "../" : "";
    fs::create_symlink(up + "blobs/" + sha, link);
    fs::create_directories(root_ / "hub" / dir / "refs");
    std::ofstream(root_ / "hub" / dir / "refs/main") << commit;
  }

  const ModelEntry* Named(const std::vector<ModelEntry>& all, const std::string& name) {
    for (const ModelEntry& e : all) {
      if (e.name == name) return &e;
    }
    return nullptr;
  }

  zest::testing::TempDir tmp_{"registry-store"};
  const fs::path root_ = tmp_.path();
  Catalog catalog_;
};

TEST_F(RegistryStoreTest, StoreModelsAreNamedByRepoAndQuant) {
  Link("models--org--tiny-GGUF", kCommit, "tiny-Q8_0.gguf", Sha('a'));
  Link("models--org--tiny-GGUF", kCommit, "tiny-F16.gguf", Sha('b'));
  Link("models--org--tiny-GGUF", kCommit, "tiny.gguf", Sha('c'));
  auto all = Registry().List();
  const ModelEntry* q8 = Named(all, "org/tiny-GGUF:Q8_0");
  ASSERT_NE(q8, nullptr);
  EXPECT_EQ(q8->source, "hf_store");
  EXPECT_EQ(q8->repo, "org/tiny-GGUF");
  EXPECT_EQ(q8->catalog, "Tiny-GGUF");
  EXPECT_EQ(q8->catalog_draft, "Remote-GGUF");  // the entry's usual draft, from this catalog
  EXPECT_EQ(q8->info.architecture, "llama");
  EXPECT_TRUE(q8->error.empty());
  EXPECT_NE(Named(all, "org/tiny-GGUF:F16"), nullptr);
  EXPECT_NE(Named(all, "org/tiny-GGUF/tiny"), nullptr);
  // The downloaded catalog model is served under its catalog name too.
  const ModelEntry* alias = Named(all, "Tiny-GGUF");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->source, "catalog");
  EXPECT_EQ(alias->path, q8->path);
  EXPECT_EQ(alias->catalog_draft, "Remote-GGUF");
  auto found = Registry().Find("org/tiny-gguf:q8_0");  // case-insensitive
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->name, "org/tiny-GGUF:Q8_0");
  EXPECT_EQ(Registry().NamesFor(*q8).size(), 2u);
}

TEST_F(RegistryStoreTest, ShardSetsAndProjectorsFromTheMainSnapshot) {
  Link("models--org--vision-GGUF", kCommit, "Q4_K_M/v-00001-of-00002.gguf", Sha('1'));
  Link("models--org--vision-GGUF", kCommit, "Q4_K_M/v-00002-of-00002.gguf", Sha('2'));
  Link("models--org--vision-GGUF", kCommit, "mmproj-F16.gguf", Sha('3'));
  Link("models--org--vision-GGUF", kCommit, "mmproj-F32.gguf", Sha('4'));
  Link("models--org--vision-GGUF", kOldCommit, "Q4_K_M/v-00001-of-00002.gguf", Sha('5'));
  std::ofstream(root_ / "hub/models--org--vision-GGUF/refs/main") << kCommit;
  auto all = Registry().List();
  const ModelEntry* m = Named(all, "org/vision-GGUF:Q4_K_M");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->path.filename(), "v-00001-of-00002.gguf");
  EXPECT_EQ(m->path.parent_path().parent_path().filename(), kCommit);
  EXPECT_EQ(m->store_paths.size(), 2u);
  EXPECT_EQ(m->info.file_size,
            2 * fs::file_size(root_ / "hub/models--org--vision-GGUF/blobs" / Sha('1')));
  EXPECT_EQ(m->mmproj.filename(), "mmproj-F16.gguf");
  EXPECT_EQ(Named(all, "org/vision-GGUF:F16"), nullptr);  // projectors are not models
  const ModelEntry* alias = Named(all, "Vision-GGUF");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->mmproj.filename(), "mmproj-F32.gguf");  // the catalog's pick
}

TEST_F(RegistryStoreTest, ResolutionOrderUserThenScannedThenCatalog) {
  Link("models--org--tiny-GGUF", kCommit, "tiny-Q8_0.gguf", Sha('a'));
  fs::copy_file(Blob("models--org--tiny-GGUF", Sha('a')), root_ / "models/Tiny-GGUF.gguf");
  auto scanned = Registry().Find("Tiny-GGUF");
  ASSERT_TRUE(scanned.ok());
  EXPECT_EQ(scanned->source, "models_dir");
  ASSERT_TRUE(Registry().Add("Tiny-GGUF", root_ / "models/Tiny-GGUF.gguf").ok());
  EXPECT_EQ(Registry().Find("Tiny-GGUF")->source, "user");
}

TEST_F(RegistryStoreTest, CatalogModelNotDownloadedNamesZestPull) {
  auto missing = Registry().Find("remote-gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("zest pull Remote-GGUF"), std::string::npos)
      << missing.status().message();
  auto store_name = Registry().Find("org/remote-GGUF:Q4_K_M");
  ASSERT_FALSE(store_name.ok());
  EXPECT_NE(store_name.status().message().find("zest pull org/remote-GGUF:Q4_K_M"),
            std::string::npos);
}

TEST_F(RegistryStoreTest, CatalogListingSaysWhatIsDownloaded) {
  Link("models--org--tiny-GGUF", kCommit, "tiny-Q8_0.gguf", Sha('a'));
  fs::create_directories(root_ / "hub/models--ggerganov--whisper.cpp/blobs");
  std::ofstream(root_ / "hub/models--ggerganov--whisper.cpp/blobs" / Sha('w')) << "ggml";
  fs::create_directories(root_ / "hub/models--ggerganov--whisper.cpp/snapshots" / kCommit);
  fs::create_symlink(
      "../../blobs/" + Sha('w'),
      root_ / "hub/models--ggerganov--whisper.cpp/snapshots" / kCommit / "ggml-x.bin");
  std::map<std::string, CatalogStatus> by_name;
  for (CatalogStatus& s : Registry().ListCatalog()) by_name[s.entry.name] = s;
  ASSERT_EQ(by_name.size(), 4u);
  EXPECT_TRUE(by_name["Tiny-GGUF"].downloaded);
  EXPECT_EQ(by_name["Tiny-GGUF"].model, "org/tiny-GGUF:Q8_0");
  EXPECT_FALSE(by_name["Vision-GGUF"].downloaded);
  EXPECT_FALSE(by_name["Remote-GGUF"].downloaded);
  EXPECT_TRUE(by_name["whisper-x"].downloaded);
}

TEST_F(RegistryStoreTest, RemoveDeletesStoreFilesButKeepsSharedBlobs) {
  Link("models--org--tiny-GGUF", kCommit, "tiny-Q8_0.gguf", Sha('a'));
  Link("models--org--tiny-GGUF", kCommit, "tiny-F16.gguf", Sha('b'));
  Link("models--org--tiny-GGUF", kOldCommit, "old-F32.gguf", Sha('a'));  // same blob
  ModelRegistry registry = Registry();
  auto q8 = registry.Find("Tiny-GGUF");
  ASSERT_TRUE(q8.ok());
  ASSERT_TRUE(registry.Remove(*q8).ok());
  fs::path blobs = root_ / "hub/models--org--tiny-GGUF/blobs";
  EXPECT_TRUE(fs::exists(blobs / Sha('a')));  // old-F32.gguf still links it
  EXPECT_TRUE(fs::exists(blobs / Sha('b')));
  EXPECT_FALSE(registry.Find("org/tiny-GGUF:Q8_0").ok());
  ASSERT_TRUE(registry.Remove(*registry.Find("org/tiny-GGUF:F32")).ok());
  EXPECT_FALSE(fs::exists(blobs / Sha('a')));
  ASSERT_TRUE(registry.Remove(*registry.Find("org/tiny-GGUF:F16")).ok());
  EXPECT_FALSE(fs::exists(root_ / "hub/models--org--tiny-GGUF"));
}

TEST_F(RegistryStoreTest, RemoveUserRegistrationKeepsTheFile) {
  fs::path file = root_ / "mine.gguf";
  fs::copy_file(Blob("models--org--tiny-GGUF", Sha('a')), file);
  fs::copy_file(file, root_ / "models/scanned.gguf");
  ModelRegistry registry = Registry();
  ASSERT_TRUE(registry.Add("mine", file).ok());
  ASSERT_TRUE(registry.Remove(*registry.Find("mine")).ok());
  EXPECT_TRUE(fs::exists(file));
  EXPECT_FALSE(registry.Find("mine").ok());
  ASSERT_TRUE(registry.Remove(*registry.Find("scanned")).ok());
  EXPECT_FALSE(fs::exists(root_ / "models/scanned.gguf"));
}

}  // namespace
}  // namespace zest::models
