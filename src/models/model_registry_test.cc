#include "models/model_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "core/testing/temp_dir.h"
#include "tools/gguf_writer.h"
#include "tools/synthetic_model.h"
#include "tools/vision_projector.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

class ModelRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    fs::create_directories(root_ / "elsewhere");
  }

  fs::path WriteModel(const fs::path& path) {
    auto spec = tools::PresetSpec("tiny");
    EXPECT_TRUE(spec.ok());
    EXPECT_TRUE(tools::WriteSyntheticModel(*spec, path).ok());
    return path;
  }

  // A synthetic projector for the tiny preset's width (or another).
  fs::path WriteProjector(const fs::path& path, uint32_t width = 0) {
    auto spec = tools::PresetSpec("tiny");
    EXPECT_TRUE(spec.ok());
    EXPECT_TRUE(tools::WriteVisionProjector(tools::ProjectorFor(width ? width : spec->embedding,
                                                                tools::TensorType::kF32, "p"),
                                            path)
                    .ok());
    return path;
  }

  ModelRegistry Registry() { return ModelRegistry(root_ / "models", root_ / "user_models.json"); }

  zest::testing::TempDir tmp_{"registry"};
  const fs::path root_ = tmp_.path();
};

TEST_F(ModelRegistryTest, ScansGgufFilesByStemWithMetadata) {
  WriteModel(root_ / "models/alpha.gguf");
  std::ofstream(root_ / "models/notes.txt") << "not a model";
  std::ofstream(root_ / "models/broken.gguf") << "garbage";
  auto all = Registry().List();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "alpha");
  EXPECT_EQ(all[0].info.architecture, "llama");
  EXPECT_GT(all[0].info.context_length, 0u);
  EXPECT_TRUE(all[0].error.empty());
  EXPECT_EQ(all[1].name, "broken");
  EXPECT_FALSE(all[1].error.empty());
}

TEST_F(ModelRegistryTest, PairsAProjectorByNameAndNeverListsItAsAModel) {
  WriteModel(root_ / "models/seer.gguf");
  WriteModel(root_ / "models/blind.gguf");
  WriteProjector(root_ / "models/seer.mmproj.gguf");
  WriteProjector(root_ / "models/mmproj-other-f16.gguf");
  WriteProjector(root_ / "models/stray-projector.gguf");  // named otherwise: still not a model
  auto all = Registry().List();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "blind");
  EXPECT_TRUE(all[0].mmproj.empty());
  EXPECT_EQ(all[1].name, "seer");
  EXPECT_EQ(all[1].mmproj, root_ / "models/seer.mmproj.gguf");
  EXPECT_TRUE(all[1].projector.has_vision);
  EXPECT_TRUE(all[1].error.empty()) << all[1].error;
}

TEST_F(ModelRegistryTest, PairsAVocoderByNameAsASpeechOutModelAndNeverListsItAsAModel) {
  WriteModel(root_ / "models/talker.gguf");
  WriteModel(root_ / "models/mute.gguf");
  WriteModel(root_ / "models/talker.vocoder.gguf");
  WriteModel(root_ / "models/WavTokenizer-vocoder-F16.gguf");  // unpaired: still not a model
  auto all = Registry().List();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "mute");
  EXPECT_TRUE(all[0].vocoder.empty());
  EXPECT_FALSE(all[0].info.tts);
  EXPECT_EQ(all[1].name, "talker");
  EXPECT_EQ(all[1].vocoder, root_ / "models/talker.vocoder.gguf");
  EXPECT_TRUE(all[1].info.tts);
  EXPECT_TRUE(all[1].error.empty()) << all[1].error;
}

// Qwen3-TTS's and Pocket TTS's repos ship their codec as an mmproj that
// writes audio: the model beside it speaks, and sees nothing.
TEST_F(ModelRegistryTest, AProjectorThatWritesAudioIsTheModelsVocoder) {
  WriteModel(root_ / "models/talker.gguf");
  tools::GgufWriter codec;
  codec.AddString("general.architecture", "clip");
  codec.AddString("general.type", "mmproj");
  codec.AddBool("clip.has_gen_audio_encoder", true);
  codec.AddString("clip.gen.audio.projector_type", "qwen3tts");
  ASSERT_TRUE(codec.Write(root_ / "models/talker.mmproj.gguf").ok());
  auto talker = Registry().Find("talker");
  ASSERT_TRUE(talker.ok()) << talker.status().ToString();
  EXPECT_TRUE(talker->error.empty()) << talker->error;
  EXPECT_TRUE(talker->info.tts);
  EXPECT_EQ(talker->vocoder, root_ / "models/talker.mmproj.gguf");
  EXPECT_TRUE(talker->mmproj.empty());
  EXPECT_FALSE(talker->projector.has_vision);
}

TEST_F(ModelRegistryTest, AProjectorOfAnotherWidthMakesTheModelsErrorWithBothWidths) {
  WriteModel(root_ / "models/seer.gguf");
  WriteProjector(root_ / "models/seer.mmproj.gguf", 512);
  auto seer = Registry().Find("seer");
  ASSERT_TRUE(seer.ok());
  EXPECT_NE(seer->error.find("width 512"), std::string::npos) << seer->error;
  EXPECT_NE(seer->error.find("embedding length is " + std::to_string(seer->info.embedding_length)),
            std::string::npos)
      << seer->error;
  fs::path model = WriteModel(root_ / "elsewhere/m.gguf");
  Status refused = Registry().Add("x", model, root_ / "models/seer.mmproj.gguf");
  EXPECT_EQ(refused.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("width 512"), std::string::npos) << refused.message();
}

TEST_F(ModelRegistryTest, AddTakesAProjectorAndRefusesWhatIsNotOne) {
  fs::path model = WriteModel(root_ / "elsewhere/m.gguf");
  fs::path projector = WriteProjector(root_ / "elsewhere/p.gguf");
  Status wrong_way = Registry().Add("x", projector);
  EXPECT_EQ(wrong_way.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(wrong_way.message().find("is a vision projector"), std::string::npos);
  Status not_one = Registry().Add("x", model, model);
  EXPECT_EQ(not_one.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(not_one.message().find("not a multimodal projector"), std::string::npos)
      << not_one.message();
  EXPECT_FALSE(Registry().Add("x", model, root_ / "elsewhere/missing.gguf").ok());

  ASSERT_TRUE(Registry().Add("seer", model, projector).ok());
  ASSERT_TRUE(Registry().Add("plain", model).ok());
  // Kept across registries (the JSON file), each with what it was given.
  auto seer = Registry().Find("seer");
  ASSERT_TRUE(seer.ok());
  EXPECT_EQ(seer->mmproj, projector);
  auto plain = Registry().Find("plain");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->mmproj.empty());
}

TEST_F(ModelRegistryTest, FindUnknownListsAvailableNames) {
  WriteModel(root_ / "models/alpha.gguf");
  auto missing = Registry().Find("beta");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("alpha"), std::string::npos);
}

// Find serves a name or an alias from the listing of the last second (the
// listing is not walked again for every request), and looks afresh for a
// name it does not hold.
TEST_F(ModelRegistryTest, FindServesNamesAndAliasesFromTheRecentListing) {
  WriteModel(root_ / "models/alpha.gguf");
  ModelRegistry registry = Registry();
  registry.SetAliases({{"gpt-*", "alpha"}});
  const auto listed = std::chrono::steady_clock::now();
  ASSERT_TRUE(registry.Find("alpha").ok());  // the first lookup lists
  fs::remove(root_ / "models/alpha.gguf");
  Result<ModelEntry> by_alias = registry.Find("gpt-4o");
  Result<ModelEntry> by_name = registry.Find("alpha");
  if (std::chrono::steady_clock::now() - listed > std::chrono::milliseconds(900)) {
    GTEST_SKIP() << "this machine took a second between two lookups: the listing is old";
  }
  ASSERT_TRUE(by_alias.ok()) << by_alias.status().ToString();
  EXPECT_EQ(by_alias->name, "alpha");
  EXPECT_TRUE(by_name.ok());
  WriteModel(root_ / "models/beta.gguf");
  EXPECT_TRUE(registry.Find("beta").ok());  // not listed yet: looked for
  EXPECT_EQ(registry.Find("gamma").status().code(), ErrorCode::kNotFound);
}

TEST_F(ModelRegistryTest, AddedModelsPersistAndWinOverScanned) {
  WriteModel(root_ / "models/alpha.gguf");
  fs::path other = WriteModel(root_ / "elsewhere/x.gguf");
  ASSERT_TRUE(Registry().Add("alpha", other).ok());
  ASSERT_TRUE(Registry().Add("org/model:q8", other).ok());
  ModelRegistry fresh = Registry();  // reads the file again
  auto alpha = fresh.Find("alpha");
  ASSERT_TRUE(alpha.ok());
  EXPECT_EQ(alpha->path, other);
  EXPECT_EQ(alpha->source, "user");
  EXPECT_TRUE(fresh.Find("org/model:q8").ok());
}

TEST_F(ModelRegistryTest, AddRejectsBadNamesAndFiles) {
  fs::path model = WriteModel(root_ / "elsewhere/x.gguf");
  EXPECT_FALSE(Registry().Add("", model).ok());
  EXPECT_FALSE(Registry().Add("../etc", model).ok());
  EXPECT_FALSE(Registry().Add("has space", model).ok());
  EXPECT_FALSE(Registry().Add("ok", root_ / "missing.gguf").ok());
  std::ofstream(root_ / "elsewhere/bad.gguf") << "nope";
  EXPECT_FALSE(Registry().Add("ok", root_ / "elsewhere/bad.gguf").ok());
  EXPECT_FALSE(fs::exists(root_ / "user_models.json"));
}

ModelPreset PresetFrom(const std::string& from) {
  ModelPreset preset;
  preset.from = from;
  return preset;
}

TEST_F(ModelRegistryTest, PresetsPersistListUnderTheirNameAndRemoveOnlyThemselves) {
  fs::path file = WriteModel(root_ / "models/alpha.gguf");
  ModelPreset preset{.from = "alpha",
                     .system = "be brief",
                     .parameters = {{"temperature", 0.2}},
                     .messages = nlohmann::json::array()};
  ASSERT_TRUE(Registry().AddPreset("brief", preset).ok());
  ModelRegistry fresh = Registry();  // reads the file again
  auto brief = fresh.Find("brief");
  ASSERT_TRUE(brief.ok()) << brief.status().message();
  EXPECT_EQ(brief->source, "preset");
  EXPECT_EQ(brief->path, file);  // the base's file and details
  EXPECT_EQ(brief->info.architecture, "llama");
  ASSERT_TRUE(brief->preset.has_value());
  EXPECT_EQ(brief->preset->from, "alpha");
  EXPECT_EQ(brief->preset->system, "be brief");
  EXPECT_EQ(brief->preset->parameters["temperature"], 0.2);
  EXPECT_EQ(fresh.List().size(), 2u);
  // Made from the base as another case spells it: kept under the base's name.
  ModelPreset upper = preset;
  upper.from = "ALPHA";
  ASSERT_TRUE(fresh.AddPreset("loud", upper).ok());
  auto loud = Registry().Find("loud");
  ASSERT_TRUE(loud.ok()) << loud.status().message();
  EXPECT_EQ(loud->preset->from, "alpha");
  ASSERT_TRUE(fresh.Remove(*loud).ok());
  // Not from a missing model, from itself, or from a preset.
  EXPECT_EQ(fresh.AddPreset("x", PresetFrom("nope")).code(), ErrorCode::kNotFound);
  EXPECT_FALSE(fresh.AddPreset("alpha", PresetFrom("alpha")).ok());
  EXPECT_FALSE(fresh.AddPreset("x", PresetFrom("brief")).ok());
  // Removing the preset removes its registration, never the base's file.
  ASSERT_TRUE(fresh.Remove(*brief).ok());
  EXPECT_TRUE(fs::exists(file));
  EXPECT_FALSE(fresh.Find("brief").ok());
  EXPECT_TRUE(fresh.Find("alpha").ok());
  // A preset whose base is gone is not listed.
  ASSERT_TRUE(fresh.AddPreset("brief", preset).ok());
  fs::remove(file);
  EXPECT_FALSE(Registry().Find("brief").ok());
}

}  // namespace
}  // namespace zest::models
