#include "engines/llama_slots.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zest::engines {
namespace {

TEST(LlamaSlotsTest, ReadsWhatTheSlotCacheNeedsAndLeavesOutTheRest) {
  Result<std::vector<EngineSlot>> slots = ReadSlots(R"([
      {"id":0,"is_processing":false,"id_task":7,"n_prompt_tokens":120,"params":{"n_predict":-1}},
      {"id":1,"is_processing":true},
      "junk",
      {"id":"two","is_processing":"no","id_task":1.5}])");
  ASSERT_TRUE(slots.ok()) << slots.status().message();
  ASSERT_EQ(slots->size(), 3u);
  EXPECT_EQ((*slots)[0].id, 0);
  EXPECT_EQ((*slots)[0].processing, false);
  EXPECT_EQ((*slots)[0].task, 7);
  EXPECT_EQ((*slots)[0].prompt_tokens, 120);
  EXPECT_EQ((*slots)[1].processing, true);
  EXPECT_FALSE((*slots)[1].task);  // never served a task
  EXPECT_EQ((*slots)[1].prompt_tokens, 0);
  // Fields of odd types read as absent.
  EXPECT_EQ((*slots)[2].id, -1);
  EXPECT_FALSE((*slots)[2].processing);
  EXPECT_EQ((*slots)[2].task, 1);
}

TEST(LlamaSlotsTest, AnswerThatIsNotAListIsTheEnginesFailure) {
  EXPECT_EQ(ReadSlots(R"({"error":"no slots"})").status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(ReadSlots("").status().code(), ErrorCode::kEngineFailed);
}

TEST(LlamaSlotsTest, SaveAndRestoreNameTheSlotAndTheFile) {
  EngineCall save = SlotActionCall(3, SlotAction::kSave, "slot-3.bin");
  EXPECT_EQ(save.path, "/slots/3?action=save");
  EXPECT_EQ(save.content_type, "application/json");
  EXPECT_EQ(nlohmann::json::parse(save.body), (nlohmann::json{{"filename", "slot-3.bin"}}));
  EXPECT_EQ(SlotActionCall(0, SlotAction::kRestore, "f").path, "/slots/0?action=restore");
  EXPECT_EQ(std::string(kSlotsPath), "/slots");
}

TEST(LlamaSlotsTest, AReplayGeneratesNothingInOneSlotFromTheCache) {
  Result<std::string> replay = ReplayBody(
      R"({"model":"m","messages":[],"max_tokens":99,"stream":true,"stream_options":{},"n":3})");
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(nlohmann::json::parse(*replay), (nlohmann::json{{"model", "m"},
                                                            {"messages", nlohmann::json::array()},
                                                            {"max_tokens", 0},
                                                            {"n_predict", 0},
                                                            {"stream", false},
                                                            {"cache_prompt", true}}));
  EXPECT_EQ(ReplayBody("[1]").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace zest::engines
