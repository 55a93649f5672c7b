// Speculative decoding chosen for real (synthetic) model files: a draft
// with the target's tokenizer is paired, placed and counted; one without is
// refused with the reason, and a configured one then leaves the model to
// load without it.
#include "scheduler/speculative_choice.h"

#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "scheduler/load_planner.h"
#include "tools/gguf_writer.h"
#include "tools/synthetic_model.h"

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;
using placement::SpeculativeKind;

class SpeculativeChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    auto spec = tools::PresetSpec("tiny");
    ASSERT_TRUE(spec.ok());
    const tools::SyntheticModelSpec draft = tools::DraftSpecFor(*spec, 1, false);
    ASSERT_TRUE(tools::WriteSyntheticModel(*spec, root_ / "models" / "t.gguf").ok());
    ASSERT_TRUE(tools::WriteSyntheticModel(draft, root_ / "models" / "d.gguf").ok());
    // Another vocabulary: a header with a token list of its own.
    tools::GgufWriter odd;
    odd.AddString("general.architecture", "llama");
    odd.AddString("tokenizer.ggml.model", "llama");
    odd.AddStringArray("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "x"});
    ASSERT_TRUE(odd.Write(root_ / "odd.gguf").ok());
    models::ModelRegistry registry(root_ / "models", root_ / "user_models.json");
    target_ = registry.Find("t").value();
    draft_ = registry.Find("d").value();
    odd_ = draft_;
    odd_.name = "odd";
    odd_.path = root_ / "odd.gguf";
  }

  FindModel Find() const {
    return [this](const std::string& name) -> Result<models::ModelEntry> {
      if (name == "d") return draft_;
      if (name == "odd") return odd_;
      if (name == "t") return target_;
      return NotFound("model '" + name + "' not found");
    };
  }

  static config::ModelSettings With(std::string draft, std::string mode = "") {
    config::ModelSettings s;
    s.draft = std::move(draft);
    s.speculative = std::move(mode);
    return s;
  }

  zest::testing::TempDir tmp_{"speculative"};
  const fs::path root_ = tmp_.path();
  models::ModelEntry target_, draft_, odd_;
};

// The load planner over the fixture's models, with 8 GiB of CPU and no other
// device: what the plan counts for a draft, and when it leaves one out.
class SpeculativePlanTest : public SpeculativeChoiceTest {
 protected:
  static PlannerOptions Options(FindModel find) {
    PlannerOptions options;
    options.find_model = std::move(find);
    return options;
  }

  static LoadContext CpuOnly() {
    placement::PlacementDevice cpu;
    cpu.name = placement::kCpuDevice;
    cpu.total_bytes = cpu.free_bytes = 8ull << 30;
    return LoadContext{
        .free = {cpu}, .replica = false, .used = {}, .npu_held_by = {}, .draft_switched_off = {}};
  }

  LoadPlanner planner_{Options(Find())};
  LoadContext context_ = CpuOnly();
};

TEST_F(SpeculativeChoiceTest, ADraftWithTheSameTokenizerIsPaired) {
  config::ModelSettings s = With("d");
  s.draft_max = 32;
  Result<SpeculativeChoice> choice = ChooseSpeculative(target_, s, Find());
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->plan.kind, SpeculativeKind::kDraft);
  EXPECT_EQ(choice->plan.draft_model, "d");
  EXPECT_EQ(choice->plan.draft_file, draft_.path.string());
  EXPECT_EQ(choice->plan.max_tokens, 32);
  ASSERT_NE(choice->draft, nullptr);
  EXPECT_EQ(choice->draft->block_count, 1u);
}

// Left unset, how many tokens a step drafts is zest's default for the kind
// of drafting, not the engine's (3, which caps an agreeing draft's gain).
TEST_F(SpeculativeChoiceTest, DraftMaxUnsetIsZestsDefaultForTheKind) {
  Result<SpeculativeChoice> draft = ChooseSpeculative(target_, With("d"), Find());
  ASSERT_TRUE(draft.ok()) << draft.status().message();
  EXPECT_EQ(draft->plan.max_tokens, kDraftModelMaxDefault);
  config::ModelSettings ngram;
  ngram.speculative = "ngram";
  Result<SpeculativeChoice> lookup = ChooseSpeculative(target_, ngram, Find());
  ASSERT_TRUE(lookup.ok()) << lookup.status().message();
  EXPECT_EQ(lookup->plan.max_tokens, kNgramMaxDefault);
  EXPECT_EQ(DefaultDraftMax(SpeculativeKind::kMtp), std::nullopt) << "MTP: the model's own heads";
}

// `auto` without a draft option takes the usual draft the registry found in
// the target's catalog entry, when it pairs; one that does not pair is
// passed over quietly (nobody asked for it).
TEST_F(SpeculativeChoiceTest, AutoTakesTheCatalogsDraftWhenItPairs) {
  models::ModelEntry from_catalog = target_;
  from_catalog.catalog_draft = "d";
  Result<SpeculativeChoice> choice = ChooseSpeculative(from_catalog, With(""), Find());
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->plan.kind, SpeculativeKind::kDraft);
  EXPECT_EQ(choice->plan.draft_model, "d");
  EXPECT_TRUE(choice->plan.chosen_by_auto);

  from_catalog.catalog_draft = "odd";
  choice = ChooseSpeculative(from_catalog, With(""), Find());
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->plan.kind, SpeculativeKind::kNone);
  EXPECT_EQ(ChooseSpeculative(from_catalog, With("", "ngram"), Find())->plan.kind,
            SpeculativeKind::kNgram);
}

config::ModelSettings MinAboveMax() {
  config::ModelSettings settings;
  settings.speculative = "ngram";
  settings.draft_max = 4;
  settings.draft_min = 9;
  return settings;
}

TEST_F(SpeculativeChoiceTest, RefusalsSayWhy) {
  struct Case {
    config::ModelSettings settings;
    ErrorCode code;
    std::string reason;
  };
  const Case cases[] = {
      {With("odd"), ErrorCode::kInvalidArgument, "draft 'odd' for 't' is refused: the draft's"},
      {With("nope"), ErrorCode::kInvalidArgument, "draft 'nope' for 't' is refused: model 'nope'"},
      {With("t"), ErrorCode::kInvalidArgument, "it is the model itself"},
      {With("", "draft"), ErrorCode::kInvalidArgument, "needs a draft model"},
      {With("", "mtp"), ErrorCode::kInvalidArgument, "no multi-token-prediction heads"},
      {MinAboveMax(), ErrorCode::kInvalidArgument, "draft_min (9) is above draft_max (4)"},
  };
  for (const Case& c : cases) {
    Result<SpeculativeChoice> choice = ChooseSpeculative(target_, c.settings, Find());
    ASSERT_FALSE(choice.ok()) << c.reason;
    EXPECT_EQ(choice.status().code(), c.code) << choice.status().message();
    EXPECT_NE(choice.status().message().find(c.reason), std::string::npos)
        << choice.status().message();
  }
}

TEST_F(SpeculativeChoiceTest, ModesWithoutADraftModel) {
  EXPECT_EQ(ChooseSpeculative(target_, With(""), Find())->plan.kind, SpeculativeKind::kNone);
  EXPECT_EQ(ChooseSpeculative(target_, With("d", "off"), Find())->plan.kind,
            SpeculativeKind::kNone);
  EXPECT_EQ(ChooseSpeculative(target_, With("", "ngram"), Find())->plan.kind,
            SpeculativeKind::kNgram);
  models::ModelEntry with_heads = target_;
  with_heads.info.mtp_layers = 1;
  EXPECT_EQ(ChooseSpeculative(with_heads, With(""), Find())->plan.kind, SpeculativeKind::kMtp);
}

TEST_F(SpeculativePlanTest, ThePlanCountsTheDraftOnTheCpuAndDropsARefusedOne) {
  Result<placement::EnginePlan> plain = planner_.Plan(target_, {}, context_);
  Result<placement::EnginePlan> paired = planner_.Plan(target_, With("d"), context_);
  ASSERT_TRUE(plain.ok() && paired.ok());
  EXPECT_EQ(plain->memory[0].memory.draft, 0u);
  EXPECT_GT(paired->memory[0].memory.draft, draft_.info.tensor_bytes);
  EXPECT_EQ(paired->TotalBytes(), plain->TotalBytes() + paired->memory[0].memory.draft);
  EXPECT_EQ(paired->speculative.kind, SpeculativeKind::kDraft);
  EXPECT_EQ(paired->speculative.draft_device, "");
  EXPECT_NE(paired->explanation.find("draft model 'd' on the CPU"), std::string::npos)
      << paired->explanation;

  Result<placement::EnginePlan> refused = planner_.Plan(target_, With("odd"), context_);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->speculative.kind, SpeculativeKind::kNone);
  EXPECT_EQ(refused->memory[0].memory.draft, 0u);
}

// After `auto` switched a draft off for not paying (draft_acceptance.h),
// the next plan leaves it out and says why; a draft asked for by name
// (speculative = "draft") stays.
TEST_F(SpeculativePlanTest, ASwitchedOffAutoDraftIsLeftOutOfThePlan) {
  Result<placement::EnginePlan> before = planner_.Plan(target_, With("d"), context_);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->speculative.chosen_by_auto);

  context_.draft_switched_off =
      placement::DraftSwitchOff{.draft_model = "d", .acceptance = 0.03, .drafted = 300};
  Result<placement::EnginePlan> after = planner_.Plan(target_, With("d"), context_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->speculative.kind, SpeculativeKind::kNone);
  EXPECT_EQ(after->memory[0].memory.draft, 0u);
  ASSERT_TRUE(after->speculative.switched_off);
  EXPECT_EQ(after->speculative.switched_off->drafted, 300u);
  EXPECT_NE(after->explanation.find(
                "auto switched the draft model 'd' off (0.03 of 300 drafted tokens accepted)"),
            std::string::npos)
      << after->explanation;

  Result<placement::EnginePlan> named = planner_.Plan(target_, With("d", "draft"), context_);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->speculative.kind, SpeculativeKind::kDraft);
  EXPECT_FALSE(named->speculative.chosen_by_auto);
}

}  // namespace
}  // namespace zest::scheduler
