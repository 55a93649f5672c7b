// InstancePool with a fake launcher (fake_engine.h): the pool's own logic
// (shared loads, dispatch within slots, memory admission and eviction,
// supervision and the crash-loop breaker, the watchdog) without real
// engines. Real engines are tested in tests/integration/.
#include "scheduler/instance_pool.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/use_future.hpp>
#include <cstring>
#include <future>
#include <thread>

#include "core/mutex.h"
#include "core/testing/temp_dir.h"
#include "engines/engine_set.h"
#include "models/model_registry.h"
#include "scheduler/admission.h"
#include "scheduler/autoscale_loop.h"
#include "scheduler/engine_watchdog.h"
#include "scheduler/fake_engine.h"
#include "scheduler/keep_alive_reaper.h"
#include "tools/synthetic_model.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using fake::FakeAdapter;
using fake::FakeEngine;
using fake::FakeLauncher;
using fake::kKilledBySigkill;

class InstancePoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    fs::permissions(root_, fs::perms::owner_all);
    auto spec = tools::PresetSpec("tiny");
    ASSERT_TRUE(spec.ok());
    for (const char* name : {"a", "b"}) {
      ASSERT_TRUE(
          tools::WriteSyntheticModel(*spec, root_ / "models" / (std::string(name) + ".gguf")).ok());
    }
    models::ModelRegistry registry(root_ / "models", root_ / "user_models.json");
    a_ = registry.Find("a").value();
    b_ = registry.Find("b").value();
    runner_ = std::jthread([this] { io_.run(); });
  }
  void TearDown() override {
    pool_.reset();
    work_.reset();
    io_.stop();
    runner_.join();
  }

  // A pool over fake engines; `cpu_bytes` 0 = no memory limit (and, with
  // `gpu`, 8 GiB); `gpu`: a (fake) discrete GPU beside the CPU.
  InstancePool& MakePool(uint64_t cpu_bytes = 0, int parallel = 2, bool gpu = false) {
    PoolOptions o;
    o.run_dir = root_ / "run";
    fs::create_directories(o.run_dir);
    o.log_dir = root_ / "logs";
    o.parallel = parallel;
    o.ctx_size = 512;
    o.ready_timeout = 5s;
    o.memory_wait = 1s;
    o.engines =
        std::make_shared<engines::EngineSet>(std::make_unique<FakeAdapter>(), nullptr, nullptr);
    o.launcher = launcher_;
    if (cpu_bytes > 0 || gpu) {
      o.discover_devices = [cpu_bytes, gpu] {
        placement::PlacementDevice cpu;
        cpu.name = "CPU";
        cpu.description = "test CPU";
        cpu.total_bytes = cpu.free_bytes = cpu_bytes > 0 ? cpu_bytes : 8ull << 30;
        std::vector<placement::PlacementDevice> devices = {cpu};
        if (gpu) {
          placement::PlacementDevice vulkan;
          vulkan.name = "Vulkan0";
          vulkan.description = "test GPU";
          vulkan.gpu = true;
          vulkan.speed_rank = 3;
          vulkan.total_bytes = vulkan.free_bytes = 8ull << 30;
          devices.push_back(vulkan);
        }
        return devices;
      };
    }
    pool_ = std::make_unique<InstancePool>(io_, std::move(o));
    return *pool_;
  }

  Result<std::shared_ptr<Instance>> Acquire(const models::ModelEntry& model) {
    return asio::co_spawn(io_, pool_->Acquire(model), asio::use_future).get();
  }
  std::future<Result<InstanceLease>> Dispatch(const models::ModelEntry& model) {
    return asio::co_spawn(io_, pool_->Dispatch(model, false, ""), asio::use_future);
  }
  void ForgetExited() { asio::co_spawn(io_, pool_->ForgetExited(), asio::use_future).get(); }
  // Bytes one loaded instance of `model` is predicted to take.
  uint64_t PredictedBytes(const models::ModelEntry& model) {
    MakePool();
    EXPECT_TRUE(Acquire(model).ok());
    uint64_t bytes = pool_->List().at(0).plan.TotalBytes();
    pool_.reset();
    return bytes;
  }

  zest::testing::TempDir tmp_{"pool"};
  const fs::path root_ = tmp_.path();
  models::ModelEntry a_, b_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      asio::make_work_guard(io_)};
  std::jthread runner_;
  std::shared_ptr<FakeLauncher> launcher_ = std::make_shared<FakeLauncher>();
  std::unique_ptr<InstancePool> pool_;
};

TEST_F(InstancePoolTest, ConcurrentFirstRequestsShareOneLoad) {
  MakePool();
  std::vector<std::future<Result<std::shared_ptr<Instance>>>> waiting;
  for (int i = 0; i < 4; ++i)
    waiting.push_back(asio::co_spawn(io_, pool_->Acquire(a_), asio::use_future));
  std::shared_ptr<Instance> first;
  for (auto& w : waiting) {
    auto instance = w.get();
    ASSERT_TRUE(instance.ok()) << instance.status().message();
    if (!first) first = *instance;
    EXPECT_EQ(instance->get(), first.get());
  }
  EXPECT_EQ(launcher_->launches(), 1);
  EXPECT_STREQ(first->engine->name(), "fake-engine");
  ASSERT_EQ(pool_->List().size(), 1u);
  EXPECT_EQ(pool_->List()[0].state, "ready");
  EXPECT_EQ(pool_->List()[0].engine, "fake-engine");
}

TEST_F(InstancePoolTest, DispatchNeverGoesPastTheSlots) {
  MakePool(0, /*parallel=*/2);
  auto first = Dispatch(a_).get();
  auto second = Dispatch(a_).get();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)->in_flight.load(), 2);
  auto third = Dispatch(a_);
  EXPECT_EQ(third.wait_for(200ms), std::future_status::timeout) << "both slots are taken";
  first->Release();
  ASSERT_EQ(third.wait_for(5s), std::future_status::ready) << "a slot came free";
  auto lease = third.get();
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->instance(), second->instance());
  EXPECT_EQ(launcher_->launches(), 1);
}

TEST_F(InstancePoolTest, EvictsAnIdleInstanceToMakeRoomForAnotherModel) {
  const uint64_t one = PredictedBytes(a_);
  MakePool(one + one / 2);  // room for one model, not two
  auto a = Acquire(a_);     // held here: its engine outlives its eviction
  ASSERT_TRUE(a.ok());
  FakeEngine* engine_a = launcher_->engine(1);
  auto b = Acquire(b_);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(engine_a->ExitStatus().has_value()) << "a was stopped";
  ASSERT_EQ(pool_->List().size(), 1u);
  EXPECT_EQ(pool_->List()[0].model, "b");
}

TEST_F(InstancePoolTest, NeverEvictsAnInstanceWithRequestsInFlight) {
  const uint64_t one = PredictedBytes(a_);
  MakePool(one + one / 2);
  auto lease = Dispatch(a_).get();  // a request holds a's slot
  ASSERT_TRUE(lease.ok());
  auto b = Acquire(b_);  // waits memory_wait (1 s) for a to go idle, then gives up
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(b.status().message().find("in use and not evicted: 'a'"), std::string::npos)
      << b.status().message();
  EXPECT_FALSE(launcher_->engine(1)->ExitStatus().has_value());
}

TEST_F(InstancePoolTest, AnEngineThatExitsBeforeItIsReadyIsHeldOff) {
  MakePool();
  launcher_->exit_at_once = true;
  auto first = Acquire(a_);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), ErrorCode::kEngineFailed);
  EXPECT_NE(first.status().message().find("exited with code 1 while loading"), std::string::npos)
      << first.status().message();
  auto held = Acquire(a_);
  ASSERT_FALSE(held.ok());
  EXPECT_NE(held.status().message().find("failed 1 time; not restarting it"), std::string::npos)
      << held.status().message();
  EXPECT_EQ(launcher_->launches(), 1) << "no engine started while held off";
  EXPECT_TRUE(Acquire(b_).status().message().find("not restarting") == std::string::npos)
      << "per model";
}

TEST_F(InstancePoolTest, AnEngineKilledFromOutsideIsReplacedAtOnceAndNotHeldOff) {
  MakePool();
  for (int kill = 0; kill < 3; ++kill) {
    auto instance = Acquire(a_);
    ASSERT_TRUE(instance.ok()) << instance.status().message();
    launcher_->engine(kill)->Exit(kKilledBySigkill);
    ForgetExited();
    EXPECT_TRUE(pool_->List().empty()) << "the dead engine is forgotten";
  }
  ASSERT_TRUE(Acquire(a_).ok());
  EXPECT_EQ(launcher_->launches(), 4);
}

TEST_F(InstancePoolTest, TheWatchdogKillsAnEngineThatStopsAnswering) {
  MakePool();
  EngineWatchdog watchdog(io_, *pool_, *pool_, 1s);
  watchdog.Start();
  // Ended before it goes, on every path: the io_context runs on.
  struct StopOnExit {
    EngineWatchdog& watchdog;
    ~StopOnExit() { watchdog.StopAndWait(); }
  } stop_on_exit{watchdog};
  auto hung = Acquire(a_);  // held here: its engine outlives the kill
  ASSERT_TRUE(hung.ok());
  FakeEngine* engine = launcher_->engine(0);
  engine->SetHealthy(false);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!engine->ExitStatus() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(engine->ExitStatus(), std::optional<int>(SIGTERM)) << "terminated by the pool";
  EXPECT_TRUE(pool_->List().empty());
  ASSERT_TRUE(Acquire(a_).ok()) << "a hang is not held off";
  EXPECT_EQ(launcher_->launches(), 2);
}

// The keep-alive reaper on a manual clock: a model is stopped once its
// keep-alive has run out, not a moment before, and never while a request
// for it is in flight.
TEST_F(InstancePoolTest, TheReaperStopsWhatOutlivedItsKeepAliveAndNothingBusy) {
  MakePool();
  ASSERT_TRUE(Acquire(a_).ok());
  ASSERT_TRUE(Acquire(b_).ok());
  Residency residency(std::chrono::minutes(10));
  KeepAliveReaper reaper(io_, residency, *pool_, *pool_);
  const Residency::Clock::time_point t0 = Residency::Clock::now();
  residency.End("a", std::chrono::minutes(10), t0);
  residency.End("b", std::chrono::minutes(1), t0);
  auto reap = [&](Residency::Clock::duration after) {
    asio::co_spawn(io_, reaper.ReapOnce(t0 + after), asio::use_future).get();
    std::vector<std::string> loaded;
    for (const InstanceStatus& s : pool_->List()) loaded.push_back(s.model);
    return loaded;
  };
  EXPECT_EQ(reap(59s), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(reap(61s), std::vector<std::string>{"a"});
  residency.Begin("a");  // a request for it is queued or running
  EXPECT_EQ(reap(std::chrono::hours(1)), std::vector<std::string>{"a"});
  residency.End("a", std::nullopt, t0 + std::chrono::hours(1));  // the default: 10 min
  EXPECT_EQ(reap(std::chrono::minutes(69)), std::vector<std::string>{"a"});
  EXPECT_EQ(reap(std::chrono::minutes(71)), std::vector<std::string>{});
  EXPECT_EQ(launcher_->launches(), 2);
}

// The autoscaler's loop on a manual clock over the real admission queue: a
// queue that stays over one request per slot for a window adds a replica on
// the other device; once the queue is gone and the replica idles, it goes.
TEST_F(InstancePoolTest, TheAutoscaleLoopAddsAReplicaUnderPressureAndRemovesItIdle) {
  MakePool(0, /*parallel=*/1, /*gpu=*/true);
  models::ModelRegistry registry(root_ / "models", root_ / "user_models.json");
  AdmissionLimits limits;
  limits.slots = 1;
  Admission admission(io_, limits);
  AutoscaleParams params;
  params.window = 10s;
  params.idle = 50ms;
  AutoscaleLoop loop(io_, params, admission, *pool_, *pool_, registry);
  ASSERT_TRUE(Acquire(a_).ok());
  auto enter = [&] {
    AdmitRequest request;
    request.model = "a";
    request.deadline = Clock::now() + 60s;
    return asio::co_spawn(io_, admission.Enter(request, std::make_shared<AdmissionCancel>()),
                          asio::use_future);
  };
  auto held = enter().get();  // the one slot
  ASSERT_TRUE(held.ok());
  auto waiting1 = enter();
  auto waiting2 = enter();
  auto queued = [&] {
    for (const QueueStats& q : admission.Stats()) {
      if (q.model == "a") return q.waiting_normal;
    }
    return std::size_t{0};
  };
  for (auto deadline = std::chrono::steady_clock::now() + 5s;
       queued() < 2 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(queued(), 2u);
  auto tick = [&](Autoscaler::Clock::time_point now) {
    asio::co_spawn(loop.strand(), loop.TickOnce(now), asio::use_future).get();
  };
  auto instances = [&] { return pool_->List().size(); };
  const auto t0 = Autoscaler::Clock::now();
  tick(t0);  // pressure starts
  tick(t0 + 9s);
  EXPECT_EQ(instances(), 1u) << "not before the window is over";
  tick(t0 + 11s);
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       instances() < 2 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(instances(), 2u);
  EXPECT_EQ(launcher_->launches(), 2);
  std::vector<std::string> devices;
  for (const InstanceStatus& s : pool_->List()) devices.push_back(s.device);
  std::sort(devices.begin(), devices.end());
  EXPECT_EQ(devices, (std::vector<std::string>{"CPU", "Vulkan0"}));

  // The queue drains; an instance idles past `idle` and goes (which one is
  // the autoscaler's choice, tested in autoscaler_test.cc), never the last.
  held = Status(ErrorCode::kCancelled, "released");
  ASSERT_TRUE(waiting1.get().ok());  // each lease is released as it is dropped
  ASSERT_TRUE(waiting2.get().ok());
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       instances() > 1 && std::chrono::steady_clock::now() < deadline;) {
    tick(Autoscaler::Clock::now());
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(instances(), 1u);
  for (int i = 0; i < 5; ++i) tick(Autoscaler::Clock::now() + std::chrono::hours(1));
  EXPECT_EQ(instances(), 1u) << "the last instance stays";
  EXPECT_EQ(launcher_->launches(), 2);
}

}  // namespace
}  // namespace zest::scheduler
