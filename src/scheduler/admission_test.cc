#include "scheduler/admission.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <optional>

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// Drives Admission on a real io_context: each "client" is a coroutine whose
// outcome is recorded, and the test releases leases by hand.
class AdmissionTest : public ::testing::Test {
 protected:
  struct Client {
    std::optional<Result<SlotLease>> result;
    int retry_after = 0;
    std::shared_ptr<AdmissionCancel> cancel = std::make_shared<AdmissionCancel>();
  };

  void Start(Client& c, Priority p, std::string tenant = "t", std::chrono::milliseconds wait = 10s,
             int slots = 1) {
    AdmitRequest r{"m", p, std::move(tenant), Clock::now() + wait, 10, slots};
    asio::co_spawn(io_, Run(*admission_, std::move(r), &c), asio::detached);
  }
  // A request for `answers` answers at once (OpenAI's n).
  void StartMany(Client& c, int answers, Priority p = Priority::kNormal) {
    Start(c, p, "t", 10s, answers);
  }
  static asio::awaitable<void> Run(Admission& a, AdmitRequest r, Client* c) {
    c->result = co_await a.Enter(std::move(r), c->cancel, &c->retry_after);
  }
  void Settle() {  // run everything ready, including timers due within 50 ms
    io_.restart();
    io_.run_for(50ms);
  }

  asio::io_context io_;
  std::unique_ptr<Admission> admission_ =
      std::make_unique<Admission>(io_, AdmissionLimits{1, 2, 1000, 60s});
};

TEST_F(AdmissionTest, SlotsThenQueueThenFull) {
  Client a, b, c, d;
  Start(a, Priority::kNormal);
  Settle();
  ASSERT_TRUE(a.result && a.result->ok());
  Start(b, Priority::kNormal);
  Start(c, Priority::kNormal);
  Start(d, Priority::kNormal);
  Settle();
  EXPECT_FALSE(b.result);
  EXPECT_FALSE(c.result);
  ASSERT_TRUE(d.result);
  EXPECT_EQ(d.result->status().code(), ErrorCode::kQueueFull);
  EXPECT_GE(d.retry_after, 1);
  auto stats = admission_->Stats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].busy, 1);
  EXPECT_EQ(stats[0].waiting_normal, 2u);
  a.result.reset();  // releases a's slot: b (first in) gets it
  Settle();
  ASSERT_TRUE(b.result && b.result->ok());
  EXPECT_FALSE(c.result);
}

// Each model's gate has its engine's sequences (per-model `parallel`, a
// load's options), reserved ones included, and follows a change.
TEST_F(AdmissionTest, GateSizeFollowsTheModelsEngineParallel) {
  // What the pool reports for "m".
  struct FakeEngines : EngineSlots {
    int parallel = 3;
    int EngineParallel(const std::string&) override { return parallel; }
  } engines;
  int& engine_parallel = engines.parallel;
  AdmissionLimits limits{4, 8, 1000, 60s, /*reserved_high=*/1};
  admission_ = std::make_unique<Admission>(io_, limits, engines);
  Client a, b, c;
  Start(a, Priority::kNormal);
  Start(b, Priority::kNormal);
  Start(c, Priority::kNormal);
  Settle();
  // 3 sequences: 2 shared (not the server-wide 4) + 1 reserved for high.
  ASSERT_TRUE(a.result && a.result->ok());
  ASSERT_TRUE(b.result && b.result->ok());
  EXPECT_FALSE(c.result);
  EXPECT_EQ(admission_->Stats()[0].slots, 3);
  // Reloaded with 4 sequences: the waiter gets the new shared slot at the next entry.
  engine_parallel = 4;
  Client d;
  Start(d, Priority::kNormal);
  Settle();
  ASSERT_TRUE(c.result && c.result->ok());
  EXPECT_FALSE(d.result);
  EXPECT_EQ(admission_->Stats()[0].slots, 4);
  // One sequence: it is shared (never all reserved).
  engine_parallel = 1;
  Client e;
  Start(e, Priority::kNormal);
  Settle();
  EXPECT_EQ(admission_->Stats()[0].slots, 1);
}

TEST_F(AdmissionTest, HighPriorityGoesFirst) {
  Client holder, low, high;
  Start(holder, Priority::kNormal);
  Settle();
  Start(low, Priority::kLow, "flood");
  Settle();
  Start(high, Priority::kHigh, "chat");
  Settle();
  holder.result.reset();
  Settle();
  ASSERT_TRUE(high.result && high.result->ok());
  EXPECT_FALSE(low.result);
}

TEST_F(AdmissionTest, DeadlineGivesQueueTimeout) {
  Client holder, late;
  Start(holder, Priority::kNormal);
  Settle();
  Start(late, Priority::kNormal, "t", 20ms);
  Settle();
  ASSERT_TRUE(late.result);
  EXPECT_EQ(late.result->status().code(), ErrorCode::kQueueTimeout);
  EXPECT_EQ(admission_->Stats()[0].waiting_normal, 0u);
}

TEST_F(AdmissionTest, CancelFreesThePlace) {
  Client holder, gone, next;
  Start(holder, Priority::kNormal);
  Start(gone, Priority::kNormal);
  Settle();
  gone.cancel->Cancel();
  Settle();
  ASSERT_TRUE(gone.result);
  EXPECT_EQ(gone.result->status().code(), ErrorCode::kCancelled);
  Start(next, Priority::kNormal);
  Settle();
  holder.result.reset();
  Settle();
  ASSERT_TRUE(next.result && next.result->ok());
  EXPECT_EQ(admission_->Stats()[0].busy, 1);
}

// One shared slot and one reserved for high priority.
class ReservedSlotTest : public AdmissionTest {
 protected:
  ReservedSlotTest() {
    AdmissionLimits limits{1, 8, 1000, 60s};
    limits.reserved_high = 1;
    admission_ = std::make_unique<Admission>(io_, limits);
  }
};

TEST_F(ReservedSlotTest, HighStartsAtOnceWhileLowFillsTheSharedSlots) {
  Client low1, low2, high;
  Start(low1, Priority::kLow, "batch");
  Start(low2, Priority::kLow, "batch");
  Settle();
  ASSERT_TRUE(low1.result && low1.result->ok());
  EXPECT_FALSE(low2.result) << "low may not take the reserved slot";
  Start(high, Priority::kHigh, "chat");
  Settle();
  ASSERT_TRUE(high.result && high.result->ok()) << "high takes the reserved slot";
  EXPECT_EQ(admission_->Stats()[0].busy, 2);
  EXPECT_EQ(admission_->Stats()[0].slots, 2);
  high.result.reset();  // the reserved slot frees: still not for low
  Settle();
  EXPECT_FALSE(low2.result);
  low1.result.reset();  // a shared slot frees: low's turn
  Settle();
  ASSERT_TRUE(low2.result && low2.result->ok());
}

TEST_F(ReservedSlotTest, QueuedHighGetsAFreedReservedSlot) {
  Client low, high1, high2, high3;
  Start(low, Priority::kLow);
  Start(high1, Priority::kHigh);
  Start(high2, Priority::kHigh);
  Settle();
  ASSERT_TRUE(low.result && high1.result);
  EXPECT_FALSE(high2.result);
  Start(high3, Priority::kHigh);
  Settle();
  EXPECT_FALSE(high3.result) << "high2 queued first";
  high1.result.reset();
  Settle();
  ASSERT_TRUE(high2.result && high2.result->ok());
  EXPECT_FALSE(high3.result);
}

}  // namespace
}  // namespace zest::scheduler

namespace zest::scheduler {
namespace {

// A model's gate grows with its instances (replicas) and shrinks back.
TEST_F(AdmissionTest, CapacityFollowsTheModelsInstances) {
  Client a, b, c, d;
  Start(a, Priority::kNormal);
  Start(b, Priority::kNormal);
  Settle();
  ASSERT_TRUE(a.result && a.result->ok());
  EXPECT_FALSE(b.result);              // one slot until the model has instances
  admission_->SetCapacity("m", 2, 2);  // two instances of one slot each
  Settle();
  ASSERT_TRUE(b.result && b.result->ok());
  EXPECT_EQ(admission_->Stats()[0].slots, 2);
  admission_->SetCapacity("m", 1, 1);  // a replica went: both keep their slots
  Start(c, Priority::kNormal);
  Settle();
  EXPECT_FALSE(c.result);
  a.result.reset();
  Settle();
  EXPECT_FALSE(c.result);  // still one too many running
  b.result.reset();
  Settle();
  ASSERT_TRUE(c.result && c.result->ok());
  admission_->SetCapacity("m", 0, 0);  // none left: one instance's worth again
  Start(d, Priority::kNormal);
  Settle();
  EXPECT_FALSE(d.result);
  EXPECT_EQ(admission_->Stats()[0].slots, 1);
}

}  // namespace
}  // namespace zest::scheduler

namespace zest::scheduler {
namespace {

// Three shared slots and one reserved for high priority (an engine with
// --parallel 4 and reserved_slots 1).
class SeveralAnswersTest : public AdmissionTest {
 protected:
  SeveralAnswersTest() {
    AdmissionLimits limits{3, 8, 1000, 60s};
    limits.reserved_high = 1;
    admission_ = std::make_unique<Admission>(io_, limits);
  }
};

// A request for n answers takes n slots, so the reserved share holds and
// requests behind it wait their turn instead of sharing an engine it fills.
TEST_F(SeveralAnswersTest, ARequestForNAnswersTakesNSlots) {
  Client two, another_two, plain, high;
  StartMany(two, 2);
  Settle();
  ASSERT_TRUE(two.result && two.result->ok());
  EXPECT_EQ(admission_->Stats()[0].busy, 2);
  StartMany(another_two, 2);  // one shared slot left: it waits
  Start(plain, Priority::kNormal);
  Settle();
  EXPECT_FALSE(another_two.result);
  EXPECT_FALSE(plain.result) << "it came later: no overtaking the one that waits for two";
  Start(high, Priority::kHigh, "chat");
  Settle();
  ASSERT_TRUE(high.result && high.result->ok()) << "high still has its reserved slot";
  EXPECT_EQ(admission_->Stats()[0].busy, 3);
  two.result.reset();  // two slots back: the waiting pair gets them
  Settle();
  ASSERT_TRUE(another_two.result && another_two.result->ok());
  EXPECT_FALSE(plain.result);
  EXPECT_EQ(admission_->Stats()[0].busy, 3);
  another_two.result.reset();
  Settle();
  ASSERT_TRUE(plain.result && plain.result->ok());
  EXPECT_EQ(admission_->Stats()[0].busy, 2);  // plain and high
}

// More answers than the gate has shared slots: it takes all of them (the
// engine makes the rest in turn) rather than waiting forever, and leaves
// the reserved one.
TEST_F(SeveralAnswersTest, NeverWaitsForMoreSlotsThanItsShare) {
  Client many, high;
  StartMany(many, 10);
  Settle();
  ASSERT_TRUE(many.result && many.result->ok());
  EXPECT_EQ(admission_->Stats()[0].busy, 3);
  Start(high, Priority::kHigh, "chat");
  Settle();
  ASSERT_TRUE(high.result && high.result->ok());
  many.result.reset();
  high.result.reset();
  Settle();
  EXPECT_EQ(admission_->Stats()[0].busy, 0) << "each gives back what it took";
}

}  // namespace
}  // namespace zest::scheduler
