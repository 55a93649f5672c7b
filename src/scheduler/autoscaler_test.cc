// The autoscaler's decisions over a fake clock: time is whatever the test
// passes in.
#include "scheduler/autoscaler.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

using namespace std::chrono_literals;
using Action = AutoscaleDecision::Action;
using Clock = Autoscaler::Clock;

const Clock::time_point t0 = Clock::time_point() + 1000s;

AutoscaleParams Params() {
  AutoscaleParams p;
  p.max_replicas = 2;
  p.window = 10s;
  p.idle = 30s;
  p.queue_per_slot = 1.0;
  return p;
}

// One ready instance with 5 slots, all busy, and `queued` waiting.
ModelLoad Busy(std::size_t queued, int instances = 1) {
  ModelLoad load;
  load.model = "m";
  load.queued = queued;
  load.slots = 5 * instances;
  for (int i = 0; i < instances; ++i) load.ready.push_back({100 + i, 5, t0, 10.0});
  return load;
}

TEST(Autoscaler, AddsOneWhenTheQueueStaysLongForTheWindow) {
  Autoscaler a(Params());
  EXPECT_EQ(a.Decide(Busy(6), t0).action, Action::kNone);       // pressure starts
  EXPECT_EQ(a.Decide(Busy(6), t0 + 9s).action, Action::kNone);  // not a window yet
  AutoscaleDecision d = a.Decide(Busy(7), t0 + 10s);
  EXPECT_EQ(d.action, Action::kUp);
  EXPECT_EQ(d.reason, "queue 7 for 10 s > 1.0 per slot x 5 slots (1 instance(s))");
}

TEST(Autoscaler, PressureMustLastTheWholeWindow) {
  Autoscaler a(Params());
  a.Decide(Busy(6), t0);
  a.Decide(Busy(5), t0 + 5s);  // at the threshold (5 per 5 slots), not above: resets
  EXPECT_EQ(a.Decide(Busy(6), t0 + 10s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(6), t0 + 19s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(6), t0 + 20s).action, Action::kUp);
}

TEST(Autoscaler, NotWhileOneIsStartingNorPastTheMaximum) {
  Autoscaler a(Params());
  ModelLoad loading = Busy(20);
  loading.loading = 1;
  a.Decide(loading, t0);
  EXPECT_EQ(a.Decide(loading, t0 + 30s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(20, 2), t0 + 60s).action, Action::kNone);  // 2 of max 2
  AutoscaleParams three = Params();
  three.max_replicas = 3;
  Autoscaler b(three);
  b.Decide(Busy(20, 2), t0);
  EXPECT_EQ(b.Decide(Busy(20, 2), t0 + 10s).action, Action::kUp);  // 20 > 10 slots
}

TEST(Autoscaler, TheNextOneNeedsAWindowOfItsOwn) {
  AutoscaleParams p = Params();
  p.max_replicas = 3;
  Autoscaler a(p);
  a.Decide(Busy(30), t0);
  ASSERT_EQ(a.Decide(Busy(30), t0 + 10s).action, Action::kUp);
  EXPECT_EQ(a.Decide(Busy(30, 2), t0 + 11s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(30, 2), t0 + 20s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(30, 2), t0 + 21s).action, Action::kUp);
}

TEST(Autoscaler, NotWhileAFailedAttemptIsBackedOff) {
  Autoscaler a(Params());
  ModelLoad held = Busy(20);
  held.may_add = false;
  a.Decide(held, t0);
  EXPECT_EQ(a.Decide(held, t0 + 30s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(20), t0 + 31s).action, Action::kUp);  // pressure counted all along
}

TEST(Autoscaler, NothingForAModelWithoutInstancesOrWhenOff) {
  Autoscaler a(Params());
  ModelLoad none = Busy(50);
  none.ready.clear();
  none.loading = 1;
  a.Decide(none, t0);
  EXPECT_EQ(a.Decide(none, t0 + 60s).action, Action::kNone);
  AutoscaleParams off = Params();
  off.enabled = false;
  Autoscaler b(off);
  b.Decide(Busy(50), t0);
  EXPECT_EQ(b.Decide(Busy(50), t0 + 60s).action, Action::kNone);
}

ModelLoad Idle(Clock::time_point first_used, Clock::time_point second_used) {
  ModelLoad load;
  load.model = "m";
  load.slots = 10;
  load.ready = {{100, 0, first_used, 10.0}, {200, 0, second_used, 10.0}};
  return load;
}

TEST(Autoscaler, RemovesTheInstanceIdleLongestAfterTheIdleWindow) {
  Autoscaler a(Params());
  EXPECT_EQ(a.Decide(Idle(t0, t0 + 5s), t0 + 29s).action, Action::kNone);
  AutoscaleDecision d = a.Decide(Idle(t0 + 5s, t0), t0 + 30s);
  EXPECT_EQ(d.action, Action::kDown);
  EXPECT_EQ(d.pid, 200);
  EXPECT_EQ(d.reason, "pid 200 idle for 30 s >= 30 s, nothing queued (2 instances)");
}

TEST(Autoscaler, TheSlowerInstanceGoesFirstSoTheFastDeviceStays) {
  Autoscaler a(Params());
  ModelLoad load = Idle(t0, t0 + 5s);  // 100 idle longer...
  load.ready[1].per_token_ms = 40.0;   // ...but 200 (llvmpipe, say) is slower
  EXPECT_EQ(a.Decide(load, t0 + 60s).pid, 200);
  load.ready[1].per_token_ms.reset();  // never measured: slowest of all
  load.ready[0].per_token_ms = 500.0;
  EXPECT_EQ(a.Decide(load, t0 + 60s).pid, 200);
  load.ready[1].per_token_ms = 10.0;  // equal speed: the one idle longer
  load.ready[0].per_token_ms = 10.0;
  EXPECT_EQ(a.Decide(load, t0 + 60s).pid, 100);
}

TEST(Autoscaler, NeverTheLastNorABusyOneNorWithAQueue) {
  Autoscaler a(Params());
  ModelLoad one = Idle(t0, t0);
  one.ready.pop_back();
  EXPECT_EQ(a.Decide(one, t0 + 600s).action, Action::kNone);
  ModelLoad busy = Idle(t0, t0);
  busy.ready[0].in_flight = 1;
  AutoscaleDecision d = a.Decide(busy, t0 + 600s);
  EXPECT_EQ(d.action, Action::kDown);
  EXPECT_EQ(d.pid, 200);  // the idle one, not the busy one
  busy.ready[1].in_flight = 1;
  EXPECT_EQ(a.Decide(busy, t0 + 600s).action, Action::kNone);
  ModelLoad queued = Idle(t0, t0);
  queued.queued = 1;
  EXPECT_EQ(a.Decide(queued, t0 + 600s).action, Action::kNone);
}

TEST(Autoscaler, RetainForgetsUnloadedModels) {
  Autoscaler a(Params());
  a.Decide(Busy(6), t0);
  a.Retain({});
  // Pressure counts again from here.
  EXPECT_EQ(a.Decide(Busy(6), t0 + 10s).action, Action::kNone);
  EXPECT_EQ(a.Decide(Busy(6), t0 + 20s).action, Action::kUp);
}

}  // namespace
}  // namespace zest::scheduler
