// EngineStarter with the fake launcher (fake_engine.h): each kind of model
// gets its engine, the launch carries what the engine needs and nothing of
// zest's, and readiness fails fast with the engine's own words.
#include "scheduler/engine_starter.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <fstream>

#include "core/testing/temp_dir.h"
#include "scheduler/fake_engine.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class EngineStarterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    for (const char* file :
         {"big-00001-of-00002.gguf", "big-00002-of-00002.gguf", "m.gguf", "mmproj-m.gguf"}) {
      std::ofstream(root_ / "models" / file) << "GGUF";
    }
  }

  EngineStarter Make(std::chrono::seconds ready_timeout = 5s) {
    StarterOptions o;
    o.engines =
        std::make_shared<engines::EngineSet>(std::make_unique<fake::FakeAdapter>("language"),
                                             nullptr, std::make_unique<fake::FakeAdapter>("speech"),
                                             std::make_unique<fake::FakeAdapter>("images"));
    o.launcher = launcher_;
    o.log_dir = root_ / "logs";
    o.ready_timeout = ready_timeout;
    return EngineStarter(std::move(o));
  }

  models::ModelEntry Model(const std::string& name, const std::string& file) {
    models::ModelEntry m;
    m.name = name;
    m.path = root_ / "models" / file;
    return m;
  }

  StartRequest Request(const std::string& id, bool replica = false) {
    return {.socket = root_ / "run" / ("engine-" + id) / "engine.sock",
            .slot_dir = {},
            .replica = replica};
  }

  Status WaitReady(const EngineStarter& starter, Instance& instance) {
    auto ready =
        asio::co_spawn(io_, starter.WaitReady(io_.get_executor(), instance), asio::use_future);
    io_.restart();
    io_.run();  // until the wait is over
    return ready.get();
  }

  zest::testing::TempDir tmp_{"starter"};
  const fs::path root_ = tmp_.path();
  std::shared_ptr<fake::FakeLauncher> launcher_ = std::make_shared<fake::FakeLauncher>();
  asio::io_context io_;
};

TEST_F(EngineStarterTest, EachKindOfModelGetsItsEngine) {
  EngineStarter starter = Make();
  placement::EnginePlan plan;
  models::ModelEntry chat = Model("chat", "m.gguf");
  models::ModelEntry ears = Model("ears", "m.gguf");
  ears.info.speech = true;
  models::ModelEntry pics = Model("pics", "m.gguf");
  pics.info.image = true;
  int n = 0;
  for (const auto& [model, engine] :
       {std::pair{chat, "language"}, std::pair{ears, "speech"}, std::pair{pics, "images"}}) {
    Result<std::shared_ptr<Instance>> started = starter.Start(model, plan, Request(engine));
    ASSERT_TRUE(started.ok()) << started.status().message();
    EXPECT_STREQ((*started)->engine->name(), engine);
    EXPECT_EQ(launcher_->spawned(n++).argv.at(0), engine);
  }
}

TEST_F(EngineStarterTest, AKindWithoutAnEngineIsUnavailable) {
  StarterOptions o;
  o.engines =
      std::make_shared<engines::EngineSet>(std::make_unique<fake::FakeAdapter>(), nullptr, nullptr);
  o.launcher = launcher_;
  EngineStarter starter(std::move(o));
  models::ModelEntry pics = Model("pics", "m.gguf");
  pics.info.image = true;
  Result<std::shared_ptr<Instance>> started = starter.Start(pics, {}, Request("1"));
  EXPECT_EQ(started.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(started.status().message().find("image generation"), std::string::npos);
  EXPECT_EQ(launcher_->launches(), 0);
}

TEST_F(EngineStarterTest, TheLaunchHasItsOwnDirectoryEnvironmentAndLog) {
  EngineStarter starter = Make();
  placement::EnginePlan plan;
  plan.gpu_devices = {"Vulkan0"};
  ASSERT_TRUE(starter.Start(Model("org/m:Q4", "m.gguf"), plan, Request("1")).ok());
  ASSERT_TRUE(starter.Start(Model("org/m:Q4", "m.gguf"), plan, Request("2", true)).ok());
  const engines::SpawnOptions first = launcher_->spawned(0);
  EXPECT_TRUE(first.clear_env);
  EXPECT_EQ(first.env, std::vector<std::string>{"FAKE=1"});  // the adapter's, not zest's
  EXPECT_EQ(first.log_file, root_ / "logs" / "org_2fm_3aQ4.log");
  EXPECT_EQ(launcher_->spawned(1).log_file, root_ / "logs" / "org_2fm_3aQ4@Vulkan0.log");
  const fs::perms dir = fs::status(root_ / "run" / "engine-1").permissions();
  EXPECT_EQ(dir & fs::perms::all, fs::perms::owner_all);
}

TEST_F(EngineStarterTest, ModelFilesAreEveryShardAndTheProjector) {
  models::ModelEntry big = Model("big", "big-00001-of-00002.gguf");
  big.mmproj = root_ / "models" / "mmproj-m.gguf";
  EXPECT_EQ(
      ModelFiles(big),
      (std::vector<fs::path>{big.path, root_ / "models" / "big-00002-of-00002.gguf", big.mmproj}));
  EXPECT_EQ(ModelFiles(Model("m", "m.gguf")), std::vector<fs::path>{root_ / "models" / "m.gguf"});
}

TEST_F(EngineStarterTest, ReadyOnceTheEngineAnswers) {
  EngineStarter starter = Make();
  auto instance = starter.Start(Model("m", "m.gguf"), {}, Request("1"));
  ASSERT_TRUE(instance.ok());
  EXPECT_TRUE(WaitReady(starter, **instance).ok());
}

// Issue 52, 9: the engine's own words (host paths, what it read) reach the
// log, not the client's 500.
TEST_F(EngineStarterTest, AnEngineThatExitsFailsFastItsWordsOnlyInTheLog) {
  EngineStarter starter = Make(/*ready_timeout=*/60s);
  launcher_->exit_at_once = true;
  auto instance = starter.Start(Model("m", "m.gguf"), {}, Request("1"));
  ASSERT_TRUE(instance.ok());
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  auto logger = std::make_shared<spdlog::logger>("test", sink);
  auto saved = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  const auto start = std::chrono::steady_clock::now();
  Status ready = WaitReady(starter, **instance);
  spdlog::set_default_logger(saved);
  EXPECT_EQ(ready.code(), ErrorCode::kEngineFailed);
  EXPECT_NE(ready.message().find("exited"), std::string::npos) << ready.message();
  EXPECT_EQ(ready.message().find("the model cannot be loaded"), std::string::npos)
      << ready.message();
  std::string logged;
  for (const std::string& line : sink->last_formatted()) logged += line;
  EXPECT_NE(logged.find("error: the model cannot be loaded"), std::string::npos) << logged;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "not the ready timeout";
}

TEST_F(EngineStarterTest, AnEngineThatNeverAnswersTimesOut) {
  EngineStarter starter = Make(/*ready_timeout=*/1s);
  auto instance = starter.Start(Model("m", "m.gguf"), {}, Request("1"));
  ASSERT_TRUE(instance.ok());
  launcher_->engine(0)->SetHealthy(false);
  Status ready = WaitReady(starter, **instance);
  EXPECT_EQ(ready.code(), ErrorCode::kTimeout);
  EXPECT_NE(ready.message().find("not ready after 1 s"), std::string::npos) << ready.message();
}

}  // namespace
}  // namespace zest::scheduler
