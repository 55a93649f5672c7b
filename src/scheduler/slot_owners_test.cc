#include "scheduler/slot_owners.h"

#include <gtest/gtest.h>

#include <vector>

namespace zest::scheduler {
namespace {

// One turn of `owner` in `session`, given back at once; its Taken.
SlotOwners::Taken Turn(SlotOwners& owners, const std::string& owner, const std::string& session) {
  SlotOwners::Taken taken = owners.Take(owner, session);
  taken.hold.reset();
  return taken;
}

TEST(SlotOwners, AFreshEngineSlotsAreNobodysToReuse) {
  SlotOwners owners(2);
  SlotOwners::Taken first = owners.Take("alice", "s1");
  ASSERT_TRUE(first.slot.has_value());
  EXPECT_FALSE(first.reuse);
}

TEST(SlotOwners, AKeyReusesOnlyWhatItFilled) {
  SlotOwners owners(2);
  const int alice = *Turn(owners, "alice", "a").slot;
  // Bob's turn gets the other (least recently used) slot, not reusable.
  SlotOwners::Taken bob = Turn(owners, "bob", "b");
  EXPECT_NE(*bob.slot, alice);
  EXPECT_FALSE(bob.reuse);
  // Alice's next turn of her conversation finds her slot, reusable.
  SlotOwners::Taken again = Turn(owners, "alice", "a");
  EXPECT_EQ(*again.slot, alice);
  EXPECT_TRUE(again.reuse);
  // Bob's new conversation goes to the least recently used slot (his
  // own), and Carol's to the next one (Alice's): never reusable for her.
  EXPECT_EQ(*Turn(owners, "bob", "b2").slot, *bob.slot);
  SlotOwners::Taken carol = Turn(owners, "carol", "c");
  EXPECT_EQ(*carol.slot, alice);
  EXPECT_FALSE(carol.reuse);
}

TEST(SlotOwners, AHeldSlotIsNotGivenTwiceWhileAnotherIsIdle) {
  SlotOwners owners(2);
  Turn(owners, "alice", "a");
  SlotOwners::Taken held = owners.Take("alice", "a");
  SlotOwners::Taken other = owners.Take("alice", "a");
  EXPECT_NE(*other.slot, *held.slot);
}

TEST(SlotOwners, WhenAllAreHeldTheQueuedRequestReusesNothing) {
  SlotOwners owners(1);
  Turn(owners, "alice", "a");
  SlotOwners::Taken bob = owners.Take("bob", "b");
  // Alice's next turn waits for Bob's slot in the engine, which will then
  // hold Bob's prompt: nothing of hers to reuse.
  SlotOwners::Taken alice = owners.Take("alice", "a");
  EXPECT_EQ(*alice.slot, *bob.slot);
  EXPECT_FALSE(alice.reuse);
}

TEST(SlotOwners, SeveralSequencesLeaveEverySlotToNoKey) {
  SlotOwners owners(3);
  Turn(owners, "alice", "a");
  SlotOwners::Taken busy = owners.Take("carol", "c");  // held while the request of several runs
  SlotOwners::Taken several = owners.TakeAll();
  EXPECT_FALSE(several.slot.has_value());
  EXPECT_FALSE(several.reuse);
  // Carol's slot is given back while the engine still places sequences:
  // one may land there.
  busy.hold.reset();
  several.hold.reset();
  // Every slot, Alice's and Carol's too, comes to the next three turns
  // (held at once, so each takes another slot) as no key's.
  std::vector<SlotOwners::Taken> next = {owners.Take("alice", "a"), owners.Take("carol", "c"),
                                         owners.Take("alice", "a")};
  for (const SlotOwners::Taken& t : next) EXPECT_FALSE(t.reuse) << *t.slot;
  next.clear();
  // Vouched for again once a key's own turn filled the slot.
  SlotOwners::Taken after = Turn(owners, "alice", "a");
  EXPECT_TRUE(after.reuse);
}

TEST(SlotOwners, ForgetAllTouchesHeldSlotsToo) {
  SlotOwners owners(1);
  Turn(owners, "alice", "a");
  SlotOwners::Taken held = owners.Take("alice", "a");
  EXPECT_TRUE(held.reuse);
  owners.ForgetAll();  // e.g. a replay sent to the engine meanwhile
  held.hold.reset();
  EXPECT_FALSE(Turn(owners, "alice", "a").reuse);
}

TEST(SlotOwners, NoKeyNeverReuses) {
  SlotOwners owners(1);
  Turn(owners, "", "");
  EXPECT_FALSE(Turn(owners, "", "").reuse);
}

}  // namespace
}  // namespace zest::scheduler
