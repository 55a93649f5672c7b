// `zest worker`'s command (rpc_worker.h) and the head's view of its
// workers (rpc_workers.h), without a worker: what is spawned, and what a
// worker nobody can ask looks like in /api/v1/health and /metrics.
#include "app/rpc_worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/rpc_workers.h"

namespace zest::app {
namespace {

using Argv = std::vector<std::string>;

bool Contains(const Argv& argv, const Argv& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

engines::EngineLocation Sandboxed() {
  engines::EngineLocation location;
  location.source = engines::EngineSource::kConfigured;
  location.binary = "/usr/bin/ggml-rpc-server";
  location.bwrap = "/usr/bin/bwrap";
  return location;
}

TEST(RpcWorkerSpawn, TheServerListensOnTheNetworkButSeesNothingOfZest) {
  config::Settings s;
  s.home = "/home/u/zest";
  engines::RpcServerOptions server;
  server.host = "10.0.0.2";
  server.port = 50052;
  server.device = "Vulkan0";
  engines::SpawnOptions spawn = RpcWorkerSpawn(s, Sandboxed(), server, "");
  const Argv& argv = spawn.argv;
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");
  // The head connects over TCP: it shares the machine's network.
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--unshare-net"), 0);
  EXPECT_TRUE(Contains(argv, {"--tmpfs", "/home/u/zest"}));
  EXPECT_TRUE(Contains(argv, {"--", "/usr/bin/ggml-rpc-server"}));
  EXPECT_TRUE(Contains(argv, {"-H", "10.0.0.2"})) << ::testing::PrintToString(argv);
  EXPECT_TRUE(spawn.clear_env);
  for (const std::string& kv : spawn.env) EXPECT_FALSE(kv.starts_with("LLAMA_CACHE=")) << kv;
}

TEST(RpcWorkerSpawn, TheTensorCacheIsItsOnlyWritableDirectory) {
  config::Settings s;
  s.home = "/home/u/zest";
  const std::filesystem::path cache = "/home/u/zest/cache/rpc";
  engines::SpawnOptions spawn = RpcWorkerSpawn(s, Sandboxed(), {}, cache);
  EXPECT_TRUE(Contains(spawn.argv, {"--bind", cache.string(), cache.string()}))
      << ::testing::PrintToString(spawn.argv);
  EXPECT_EQ(std::count(spawn.argv.begin(), spawn.argv.end(), "--bind"), 1);
  EXPECT_NE(std::find(spawn.env.begin(), spawn.env.end(), "LLAMA_CACHE=" + cache.string()),
            spawn.env.end());
}

TEST(RpcWorkerSpawn, WithoutBubblewrapTheServerRunsBare) {
  engines::EngineLocation bare;
  bare.source = engines::EngineSource::kSystem;
  bare.binary = "/usr/bin/ggml-rpc-server";
  engines::SpawnOptions spawn = RpcWorkerSpawn({}, bare, {}, "");
  ASSERT_FALSE(spawn.argv.empty());
  EXPECT_EQ(spawn.argv.front(), "/usr/bin/ggml-rpc-server");
}

TEST(RpcWorkers, AWorkerNotYetCheckedThenOneNothingCanAsk) {
  // No language engine: nothing can ask a worker what it serves.
  RpcWorkers workers({"10.0.0.2:50052", "10.0.0.3:50052"}, nullptr);
  EXPECT_FALSE(workers.empty());
  nlohmann::json before = workers.Json();
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0]["endpoint"], "10.0.0.2:50052");
  EXPECT_EQ(before[0]["device"], engines::RpcDeviceName("10.0.0.2:50052"));
  EXPECT_TRUE(before[0]["reachable"].is_null()) << before.dump();

  metrics::Registry metrics;
  workers.AddGauges(metrics);
  EXPECT_EQ(metrics.Render().find("zest_rpc_worker_up{"), std::string::npos)
      << "nothing before the first check";

  std::vector<placement::PlacementDevice> devices = workers.Check();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_FALSE(devices[0].reachable);
  EXPECT_EQ(devices[0].name, engines::RpcDeviceName("10.0.0.2:50052"));
  nlohmann::json after = workers.Json();
  EXPECT_EQ(after[1]["reachable"], false) << after.dump();
  EXPECT_NE(after[1]["description"].get<std::string>().find("no llama-server"), std::string::npos)
      << after.dump();
  EXPECT_NE(metrics.Render().find(R"(zest_rpc_worker_up{endpoint="10.0.0.3:50052"} 0)"),
            std::string::npos)
      << metrics.Render();
  EXPECT_EQ(metrics.Render().find("zest_rpc_worker_memory_bytes{"), std::string::npos)
      << "no memory reported by a worker that did not answer";
}

}  // namespace
}  // namespace zest::app
