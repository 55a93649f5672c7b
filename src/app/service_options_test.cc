// The translation from settings to each service's options (service_options.h)
// and the refusals at start (settings_checks.h): the rules written in their
// headers, each with a setting that turns it.
#include "app/service_options.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "app/settings_checks.h"
#include "core/testing/temp_dir.h"
#include "engines/engine_discovery.h"

namespace zest::app {
namespace {

namespace fs = std::filesystem;

// A real EngineSet with no engine found (nothing configured, no PATH, no
// rootfs): what a machine without engines gives the pool.
std::shared_ptr<const engines::EngineSet> NoEngines() {
  engines::EngineSearch search;
  search.log = false;
  search.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  return engines::DiscoverEngines(search);
}

using zest::testing::TempDir;

config::Settings Home(const fs::path& home) {
  config::Settings s;
  s.home = home;
  s.models_dir = home / "models";
  s.hf_hub_cache = home / "hub";
  return s;
}

TEST(PoolOptionsFor, EnginesRunTheReservedSlotsTooAndNeverSeeZestsHome) {
  TempDir run("app");
  config::Settings s = Home("/home/u/zest");
  s.parallel = 3;
  s.reserved_slots = 2;
  hardware::Inventory inventory;
  RpcWorkers none({}, nullptr);
  scheduler::PoolOptions o = PoolOptionsFor(s, run.path(), inventory, NoEngines(), none);
  EXPECT_EQ(o.parallel, 5);
  EXPECT_EQ(o.hidden_dirs, std::vector<fs::path>{"/home/u/zest"});
  EXPECT_EQ(o.model_roots, (std::vector<fs::path>{"/home/u/zest/models", "/home/u/zest/hub"}));
  EXPECT_EQ(o.run_dir, run.path());
  EXPECT_EQ(o.slot_dir, s.SlotDir());
  EXPECT_TRUE(o.handoff_dir.empty());
  EXPECT_FALSE(o.remote_devices) << "no RPC workers: nothing to ask";
  ASSERT_TRUE(o.discover_devices);
  ASSERT_TRUE(o.engines);
}

TEST(PoolOptionsFor, SlotsAreKeptOnlyWhenAskedAndTheSplitGetsAPrivateHandOverDirectory) {
  TempDir run("app");
  config::Settings s = Home("/home/u/zest");
  s.save_slots = false;
  s.split_prefill_tokens = 4096;
  hardware::Inventory inventory;
  RpcWorkers workers({"10.0.0.2:50052"}, nullptr);
  scheduler::PoolOptions o = PoolOptionsFor(s, run.path(), inventory, NoEngines(), workers);
  EXPECT_TRUE(o.slot_dir.empty());
  EXPECT_EQ(o.handoff_dir, run.path() / "handoff");
  struct stat st {};
  ASSERT_EQ(::stat(o.handoff_dir.c_str(), &st), 0) << "the hand-over directory was not made";
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(o.remote_devices) << "RPC workers configured: the pool asks them";
}

TEST(AutoscaleParamsFor, ReplicasNeedAutoscaleAndRoomForASecondInstance) {
  config::Settings s;
  s.autoscale = true;
  s.autoscale_max_replicas = 3;
  s.autoscale_window_s = 7;
  EXPECT_TRUE(AutoscaleParamsFor(s).enabled);
  EXPECT_EQ(AutoscaleParamsFor(s).window, std::chrono::seconds(7));
  s.autoscale_max_replicas = 1;
  EXPECT_FALSE(AutoscaleParamsFor(s).enabled);
  s.autoscale_max_replicas = 3;
  s.autoscale = false;
  EXPECT_FALSE(AutoscaleParamsFor(s).enabled);
}

TEST(AdmissionLimitsFor, ReservedSlotsAreAdmissionsToo) {
  config::Settings s;
  s.parallel = 4;
  s.reserved_slots = 1;
  s.max_queue = 9;
  scheduler::AdmissionLimits limits = AdmissionLimitsFor(s);
  EXPECT_EQ(limits.slots, 4);
  EXPECT_EQ(limits.reserved_high, 1);
  EXPECT_EQ(limits.max_queue, 9u);
}

TEST(ChatRouteOptionsFor, AKeysLongestKeepAliveIsTheServersUnlessCapped) {
  config::Settings s;
  s.keep_alive = "10m";
  s.default_max_tokens = 512;
  api::ChatRouteOptions o = ChatRouteOptionsFor(s);
  EXPECT_EQ(o.max_keep_alive, ParseDuration("10m").value());
  EXPECT_EQ(o.default_max_tokens, 512);
  s.max_keep_alive = "1h";
  EXPECT_EQ(ChatRouteOptionsFor(s).max_keep_alive, ParseDuration("1h").value());
}

TEST(PullOptionsFor, BytesReceivedAreCounted) {
  config::Settings s;
  metrics::Registry metrics;
  models::DownloadOptions o = PullOptionsFor(s, metrics);
  ASSERT_TRUE(o.on_received);
  o.on_received(1000);
  o.on_received(24);
  EXPECT_NE(metrics.Render().find("zest_download_bytes_total 1024"), std::string::npos)
      << metrics.Render();
}

TEST(ManifestPathFor, RelativeToZestsHome) {
  config::Settings s = Home("/home/u/zest");
  EXPECT_EQ(ManifestPathFor(s), fs::path());
  s.cluster_manifest = "cluster.toml";
  EXPECT_EQ(ManifestPathFor(s), fs::path("/home/u/zest/cluster.toml"));
  s.cluster_manifest = "/etc/zest/cluster.toml";
  EXPECT_EQ(ManifestPathFor(s), fs::path("/etc/zest/cluster.toml"));
}

TEST(SettingsChecks, AnEngineFlagTheAllowListRefusesNamesItsModel) {
  config::Settings s;
  s.model_settings["good"].extra_args = {"--temp", "0.7"};
  EXPECT_TRUE(CheckEngineFlags(s).ok());
  s.model_settings["bad"].extra_args = {"--api-key", "X"};
  Status st = CheckEngineFlags(s);
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(st.message().find("models.\"bad\".extra_args"), std::string::npos) << st.message();
}

TEST(SettingsChecks, AnAliasToAGlobIsRefused) {
  config::Settings s;
  s.aliases = {{"gpt-*", "qwen"}};
  EXPECT_TRUE(CheckAliases(s).ok());
  ASSERT_EQ(AliasesFor(s).size(), 1u);
  EXPECT_EQ(AliasesFor(s)[0].pattern, "gpt-*");
  EXPECT_EQ(AliasesFor(s)[0].target, "qwen");
  s.aliases.push_back({"fast", "qwen-*"});
  EXPECT_EQ(CheckAliases(s).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace zest::app
