#include "scheduler/slot_cache.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

SlotState Idle(int id, int task, int prompt_tokens = 100) {
  return {.id = id, .processing = false, .task = task, .prompt_tokens = prompt_tokens};
}
SlotState Busy(int id, int task) {
  return {.id = id, .processing = true, .task = task, .prompt_tokens = 100};
}

TEST(PickSlotTest, NewestIsTheIdleSlotOfTheLatestTask) {
  EXPECT_EQ(PickSlot({Idle(0, 7), Idle(1, 9), Busy(2, 12)}, SlotPick::kNewest), 1);
}

TEST(PickSlotTest, ARestoreGoesToAnEmptySlotFirst) {
  // Slot 2 served a task once, but its prompt is gone: as good as empty.
  EXPECT_EQ(PickSlot({Idle(0, 3), Idle(1, 9), Idle(2, 5, 0)}, SlotPick::kRestoreTarget), 2);
  EXPECT_EQ(PickSlot({Idle(0, 3), Idle(1, -1, 0)}, SlotPick::kRestoreTarget), 1);
}

TEST(PickSlotTest, ElseToTheLeastRecentlyUsed) {
  EXPECT_EQ(PickSlot({Idle(0, 8), Busy(1, 2), Idle(2, 4)}, SlotPick::kRestoreTarget), 2);
}

// Two restores into one fresh engine: the second skips the slot the first
// holds, and gets none when that was the only idle one.
TEST(PickSlotTest, ARestoreSkipsTheSlotsOthersHold) {
  EXPECT_EQ(PickSlot({Idle(0, -1, 0), Idle(1, -1, 0)}, SlotPick::kRestoreTarget, {0}), 1);
  EXPECT_EQ(PickSlot({Idle(0, 3), Busy(1, 2)}, SlotPick::kRestoreTarget, {0}), std::nullopt);
}

// A turn of 348 tokens (prompt and answer) leaves 347 in its slot; one
// that ended on a stop token may leave one fewer. The latest such slot.
TEST(PickSlotTest, TheSlotHoldingATurnHasItsTokensLessTheLastOne) {
  EXPECT_EQ(PickSlotHolding({Idle(0, 3, 347), Idle(1, 5, 900)}, 348), 0);
  EXPECT_EQ(PickSlotHolding({Idle(0, 3, 346), Idle(1, 5, 900)}, 348), 0);
  EXPECT_EQ(PickSlotHolding({Idle(0, 3, 347), Idle(1, 5, 347)}, 348), 1);
  EXPECT_EQ(PickSlotHolding({Idle(0, 3, 345), Idle(1, 5, 349)}, 348), std::nullopt);
  // Taken by the next request already: its state is the RAM cache's now.
  EXPECT_EQ(PickSlotHolding({Busy(0, 9), Idle(1, 5, 900)}, 101), std::nullopt);
}

TEST(PickSlotTest, NoneWhenEverySlotIsBusy) {
  EXPECT_EQ(PickSlot({Busy(0, 1), Busy(1, 2)}, SlotPick::kRestoreTarget), std::nullopt);
  EXPECT_EQ(PickSlot({}, SlotPick::kNewest), std::nullopt);
  EXPECT_EQ(PickSlot({Idle(-1, 1)}, SlotPick::kNewest), std::nullopt);  // no id: not a slot
}

}  // namespace
}  // namespace zest::scheduler
