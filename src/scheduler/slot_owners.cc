#include "scheduler/slot_owners.h"

#include <utility>

namespace zest::scheduler {

class SlotOwners::Hold {
 public:
  Hold(std::shared_ptr<Book> book, std::vector<int> slots, std::string owner, std::string session,
       uint64_t forgotten, bool several)
      : book_(std::move(book)),
        slots_(std::move(slots)),
        owner_(std::move(owner)),
        session_(std::move(session)),
        forgotten_(forgotten),
        several_(several) {}
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  ~Hold() {
    MutexLock lock(book_->mu);
    if (several_) --book_->several;
    // What the engine did in the slot since a ForgetAll, or while it had
    // sequences to place, is of no key.
    const bool vouched = book_->forgotten == forgotten_ && book_->several == 0;
    const uint64_t now = ++book_->clock;
    for (int i : slots_) {
      Slot& slot = book_->slots[static_cast<std::size_t>(i)];
      slot.held = false;
      slot.owner = vouched ? owner_ : std::string();
      slot.session = vouched ? session_ : std::string();
      slot.used = now;
    }
  }

 private:
  const std::shared_ptr<Book> book_;
  const std::vector<int> slots_;
  const std::string owner_;  // "": the slots are left to no key
  const std::string session_;
  const uint64_t forgotten_;
  const bool several_;  // a TakeAll's
};

SlotOwners::SlotOwners(int slots) : book_(std::make_shared<Book>()), count_(slots < 1 ? 1 : slots) {
  MutexLock lock(book_->mu);
  book_->slots.resize(static_cast<std::size_t>(count_));
}

int SlotOwners::Choose(const std::vector<Slot>& slots, const std::string& owner,
                       const std::string& session) {
  const int n = static_cast<int>(slots.size());
  auto at = [&](int i) -> const Slot& { return slots[static_cast<std::size_t>(i)]; };
  if (!session.empty()) {
    for (int i = 0; i < n; ++i) {
      if (!at(i).held && at(i).owner == owner && at(i).session == session) return i;
    }
  }
  // The least recently used idle slot; when all are held, the least
  // recently used of all (the engine queues the request for it).
  int best = -1;
  for (bool idle_only : {true, false}) {
    for (int i = 0; i < n; ++i) {
      if (idle_only && at(i).held) continue;
      if (best < 0 || at(i).used < at(best).used) best = i;
    }
    if (best >= 0) break;
  }
  return best;
}

SlotOwners::Taken SlotOwners::Take(const std::string& owner, const std::string& session) {
  MutexLock lock(book_->mu);
  const int i = Choose(book_->slots, owner, session);
  Slot& slot = book_->slots[static_cast<std::size_t>(i)];
  Taken taken;
  taken.slot = i;
  // A slot held by another request now holds what that one sent once the
  // engine gets to this one: nothing to reuse.
  taken.reuse = !owner.empty() && !slot.held && slot.owner == owner;
  slot.held = true;
  taken.hold = std::make_shared<Hold>(book_, std::vector<int>{i}, owner, session, book_->forgotten,
                                      /*several=*/false);
  return taken;
}

SlotOwners::Taken SlotOwners::TakeAll() {
  MutexLock lock(book_->mu);
  std::vector<int> idle;
  for (std::size_t i = 0; i < book_->slots.size(); ++i) {
    Slot& slot = book_->slots[i];
    if (slot.held) continue;
    slot.held = true;
    idle.push_back(static_cast<int>(i));
  }
  // Slots held by others when this one started may get its sequences
  // once they are given back: none of them can be vouched for after.
  ++book_->forgotten;
  ++book_->several;
  for (Slot& slot : book_->slots) {
    slot.owner.clear();
    slot.session.clear();
  }
  Taken taken;
  taken.hold = std::make_shared<Hold>(book_, std::move(idle), std::string(), std::string(),
                                      book_->forgotten, /*several=*/true);
  return taken;
}

void SlotOwners::ForgetAll() {
  MutexLock lock(book_->mu);
  ++book_->forgotten;
  for (Slot& slot : book_->slots) {
    slot.owner.clear();
    slot.session.clear();
  }
}

}  // namespace zest::scheduler
