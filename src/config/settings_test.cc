#include "config/settings.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <vector>

#include "config/secure_file.h"
#include "core/testing/temp_dir.h"

namespace zest::config {
namespace {

namespace fs = std::filesystem;

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override { env_["ZEST_HOME"] = home_.string(); }

  void WriteConfig(const std::string& text) { std::ofstream(home_ / "config.toml") << text; }

  Result<LoadedSettings> Load() {
    LoadInputs in;
    in.getenv = [this](const std::string& k) -> std::optional<std::string> {
      auto it = env_.find(k);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
    in.flags = flags_;
    return LoadSettings(in);
  }

  const SettingOrigin& Origin(const LoadedSettings& loaded, const std::string& key) {
    for (const auto& o : loaded.origins) {
      if (o.key == key) return o;
    }
    ADD_FAILURE() << "no origin for " << key;
    static SettingOrigin none;
    return none;
  }

  zest::testing::TempDir tmp_{"settings"};
  const fs::path home_ = tmp_.path();
  std::map<std::string, std::string> env_;
  std::map<std::string, std::string> flags_;
};

TEST_F(SettingsTest, DefaultsWhenNothingIsSet) {
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->settings.port, 9378);
  EXPECT_EQ(loaded->settings.host, "127.0.0.1");
  EXPECT_EQ(loaded->settings.models_dir, home_ / "models");
  EXPECT_EQ(Origin(*loaded, "server.port").source, Source::kDefault);
}

TEST_F(SettingsTest, FlagBeatsEnvBeatsFileBeatsDefault) {
  WriteConfig("[server]\nport = 1111\nio_threads = 3\n[engine]\nparallel = 2\nctx_size = 8192\n");
  env_["ZEST_PORT"] = "2222";
  env_["ZEST_PARALLEL"] = "6";
  flags_["server.port"] = "3333";
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Settings& s = loaded->settings;
  EXPECT_EQ(s.port, 3333);
  EXPECT_EQ(s.parallel, 6);
  EXPECT_EQ(s.ctx_size, 8192);
  EXPECT_EQ(s.io_threads, 3);
  EXPECT_EQ(Origin(*loaded, "server.port").source, Source::kFlag);
  EXPECT_EQ(Origin(*loaded, "engine.parallel").detail, "ZEST_PARALLEL");
  EXPECT_EQ(Origin(*loaded, "engine.ctx_size").source, Source::kFile);
}

TEST_F(SettingsTest, ZestHostGivesBindAddress) {
  env_["ZEST_HOST"] = "http://0.0.0.0:8080/";
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->settings.host, "0.0.0.0");
  EXPECT_EQ(loaded->settings.port, 8080);
  env_["ZEST_HOST"] = "[::1]:9000";
  loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->settings.host, "::1");
  EXPECT_EQ(loaded->settings.port, 9000);
}

TEST_F(SettingsTest, BadValuesNameTheirSource) {
  env_["ZEST_PORT"] = "70000";
  auto loaded = Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("ZEST_PORT"), std::string::npos);
  env_.erase("ZEST_PORT");
  flags_["log.level"] = "loud";
  EXPECT_FALSE(Load().ok());
  flags_.clear();
  flags_["no.such"] = "1";
  EXPECT_FALSE(Load().ok());
}

TEST_F(SettingsTest, SpeechTextStaysUnderOneArgumentsLimit) {
  env_["ZEST_MAX_SPEECH_CHARS"] = "32000";
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->settings.max_speech_chars, 32000);
  env_["ZEST_MAX_SPEECH_CHARS"] = "32001";  // four-byte characters would pass 128 KiB
  loaded = Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("ZEST_MAX_SPEECH_CHARS"), std::string::npos);
  EXPECT_NE(loaded.status().message().find("32000"), std::string::npos);
}

TEST_F(SettingsTest, KeepAliveIsADuration) {
  EXPECT_EQ(Load()->settings.keep_alive, "10m");
  WriteConfig("[scheduler]\nkeep_alive = \"1h30m\"\n");
  EXPECT_EQ(Load()->settings.keep_alive, "1h30m");
  flags_["scheduler.keep_alive"] = "-1";
  EXPECT_EQ(Load()->settings.keep_alive, "-1");
  flags_["scheduler.keep_alive"] = "ten minutes";
  auto loaded = Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("scheduler.keep_alive"), std::string::npos);
}

TEST_F(SettingsTest, MetricsSwitchAndLogFormat) {
  WriteConfig("[metrics]\nenabled = false\n[log]\nformat = \"json\"\n");
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_FALSE(loaded->settings.metrics_enabled);
  EXPECT_EQ(loaded->settings.log_format, "json");
  env_["ZEST_METRICS"] = "1";
  flags_["log.format"] = "text";
  loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->settings.metrics_enabled);
  EXPECT_EQ(loaded->settings.log_format, "text");
  flags_["log.format"] = "xml";
  EXPECT_FALSE(Load().ok());
  flags_.clear();
  env_["ZEST_METRICS"] = "maybe";
  EXPECT_FALSE(Load().ok());
}

TEST_F(SettingsTest, AutoscaleKeys) {
  auto defaults = Load();
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_TRUE(defaults->settings.autoscale);
  EXPECT_EQ(defaults->settings.autoscale_max_replicas, 2);
  EXPECT_EQ(defaults->settings.autoscale_window_s, 10);
  EXPECT_EQ(defaults->settings.autoscale_idle_s, 60);
  WriteConfig(
      "[scheduler]\nautoscale = false\nautoscale_max_replicas = 3\nautoscale_window_s = 5\n");
  env_["ZEST_AUTOSCALE_IDLE"] = "7";
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_FALSE(loaded->settings.autoscale);
  EXPECT_EQ(loaded->settings.autoscale_max_replicas, 3);
  EXPECT_EQ(loaded->settings.autoscale_window_s, 5);
  EXPECT_EQ(loaded->settings.autoscale_idle_s, 7);
  EXPECT_EQ(Origin(*loaded, "scheduler.autoscale_idle_s").detail, "ZEST_AUTOSCALE_IDLE");
  env_["ZEST_AUTOSCALE_WINDOW"] = "0";  // a window of nothing would add replicas on any blip
  EXPECT_FALSE(Load().ok());
}

TEST_F(SettingsTest, RpcWorkersFromTheFileEnvAndFlags) {
  EXPECT_TRUE(Load()->settings.rpc_workers.empty());
  WriteConfig("[rpc]\nworkers = [\"10.0.0.2:50052\", \"worker-3:50052\"]\n");
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->settings.rpc_workers,
            (std::vector<std::string>{"10.0.0.2:50052", "worker-3:50052"}));
  env_["ZEST_RPC_WORKERS"] = "10.0.0.4:1, 10.0.0.5:2";
  EXPECT_EQ(Load()->settings.rpc_workers, (std::vector<std::string>{"10.0.0.4:1", "10.0.0.5:2"}));
  flags_["rpc.workers"] = "10.0.0.6:3";  // --rpc-worker
  EXPECT_EQ(Load()->settings.rpc_workers, std::vector<std::string>{"10.0.0.6:3"});
  // Held as engines and placement name them: the host lower-cased.
  flags_["rpc.workers"] = "Worker-1:50052";
  EXPECT_EQ(Load()->settings.rpc_workers, std::vector<std::string>{"worker-1:50052"});
  for (const char* bad : {"10.0.0.6", "10.0.0.6:0", "10.0.0.6:1,10.0.0.6:1", ":5", ":50052",
                          "[fd00::3]:1", "[FD00::2]:7", "Worker-1:1,worker-1:1"}) {
    flags_["rpc.workers"] = bad;
    EXPECT_FALSE(Load().ok()) << bad;
  }
}

TEST_F(SettingsTest, MalformedFileIsAnErrorWithLine) {
  WriteConfig("[server]\nport = \n");
  auto loaded = Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("config.toml:2"), std::string::npos)
      << loaded.status().message();
}

TEST_F(SettingsTest, PerModelTablesAndMemoryLimit) {
  WriteConfig(
      "[models]\ndir = \"/srv/models\"\n"
      "[models.\"qwen3:30b\"]\nctx_size = 32768\nn_gpu_layers = 20\ndevice = \"Vulkan0\"\n"
      "kv_type = \"q8_0\"\nno_mmap = true\nextra_args = [\"--temp\", \"0.7\"]\n"
      "[placement]\nmemory_limit = \"6G\"\n");
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Settings& s = loaded->settings;
  EXPECT_EQ(s.models_dir, "/srv/models");
  EXPECT_EQ(s.memory_limit, 6ull << 30);
  ASSERT_EQ(s.model_settings.count("qwen3:30b"), 1u);
  const ModelSettings& m = s.model_settings.at("qwen3:30b");
  EXPECT_EQ(m.ctx_size, 32768u);
  EXPECT_EQ(m.n_gpu_layers, 20);
  EXPECT_EQ(m.device, "Vulkan0");
  EXPECT_EQ(m.kv_type, "q8_0");
  EXPECT_TRUE(m.no_mmap);
  EXPECT_FALSE(m.parallel.has_value());
  EXPECT_EQ(m.extra_args, (std::vector<std::string>{"--temp", "0.7"}));
  // An array of numbers (integers and floats alike) for tensor_split.
  WriteConfig("[models.\"m\"]\ntensor_split = [3, 1.5]\ncache_type_v = \"q4_0\"\n");
  auto split = Load();
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(split->settings.model_settings.at("m").tensor_split, (std::vector<double>{3, 1.5}));
  EXPECT_EQ(split->settings.model_settings.at("m").cache_type_v, "q4_0");
  env_["ZEST_MEMORY_LIMIT"] = "1073741824";
  EXPECT_EQ(Load()->settings.memory_limit, 1ull << 30);
}

TEST_F(SettingsTest, BadModelTableValuesNameModelAndKey) {
  WriteConfig("[models.\"m\"]\nkv_type = \"q5_1\"\n");
  auto loaded = Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("models.\"m\".kv_type: expected f16, q8_0 or q4_0"),
            std::string::npos)
      << loaded.status().message();
  WriteConfig("[models.\"m\"]\ntensor_split = [1, -1]\n");
  EXPECT_NE(Load().status().message().find("models.\"m\".tensor_split: expected an array of "
                                           "non-negative numbers"),
            std::string::npos)
      << Load().status().message();
  WriteConfig("[models.\"m\"]\ntensor_split = [1, \"a\"]\n");
  EXPECT_NE(Load().status().message().find("models.\"m\".tensor_split: expected"),
            std::string::npos);
  WriteConfig("[models.\"m\"]\ngpu_layers = 3\n");
  EXPECT_NE(Load().status().message().find("unknown key 'gpu_layers'"), std::string::npos);
  WriteConfig("[placement]\nmemory_limit = \"lots\"\n");
  EXPECT_FALSE(Load().ok());
}

// One validator for config.toml tables and POST /api/v1/load options.
TEST(ModelOptionTest, SetAndListOptionsByName) {
  ModelSettings m;
  EXPECT_TRUE(SetModelOption(m, "ctx_size", OptionValue(int64_t{65536})).ok());
  EXPECT_TRUE(SetModelOption(m, "flash_attention", OptionValue(false)).ok());
  EXPECT_TRUE(SetModelOption(m, "device", OptionValue(std::string("Vulkan0"))).ok());
  EXPECT_TRUE(SetModelOption(m, "no_mmap", OptionValue(true)).ok());
  EXPECT_EQ(m.ctx_size, 65536u);
  EXPECT_EQ(m.flash_attention, false);
  EXPECT_EQ(SetModelOption(m, "gpu_layers", OptionValue(int64_t{3})).message(),
            "unknown option 'gpu_layers'");
  EXPECT_EQ(SetModelOption(m, "parallel", OptionValue(int64_t{0})).message(), "expected 1 to 256");
  EXPECT_EQ(SetModelOption(m, "ctx_size", OptionValue(2.5)).message(), "expected a context length");
  EXPECT_EQ(SetModelOption(m, "kv_type", OptionValue(std::string("q5_1"))).message(),
            "expected f16, q8_0 or q4_0");
  EXPECT_EQ(m.kv_type, "");  // unchanged by a refused value
  // Listed back (unset ones left out), and set again they give equal settings.
  auto listed = SetModelOptions(m);
  ASSERT_EQ(listed.size(), 4u);
  EXPECT_EQ(listed[0].first, "ctx_size");
  ModelSettings again;
  for (const auto& [key, value] : listed)
    ASSERT_TRUE(SetModelOption(again, key, value).ok()) << key;
  EXPECT_EQ(again, m);
}

TEST(ModelOptionTest, PromptCacheInMib) {
  ModelSettings m;
  EXPECT_TRUE(SetModelOption(m, "cache_ram", OptionValue(int64_t{0})).ok());
  EXPECT_EQ(m.cache_ram, 0u);  // set to none, not unset
  EXPECT_TRUE(SetModelOption(m, "cache_ram", OptionValue(int64_t{2048})).ok());
  EXPECT_EQ(m.cache_ram, 2048u);
  EXPECT_EQ(SetModelOption(m, "cache_ram", OptionValue(int64_t{-1})).message(),
            "expected MiB, 0 to 1048576");
  EXPECT_EQ(m.cache_ram, 2048u);
}

TEST(ModelOptionTest, CacheTypesAndTensorSplit) {
  ModelSettings m;
  EXPECT_TRUE(SetModelOption(m, "kv_type", OptionValue(std::string("q8_0"))).ok());
  EXPECT_TRUE(SetModelOption(m, "cache_type_v", OptionValue(std::string("q4_0"))).ok());
  EXPECT_EQ(SetModelOption(m, "cache_type_k", OptionValue(std::string("q4_1"))).message(),
            "expected f16, q8_0 or q4_0");
  const std::string expected =
      "expected an array of non-negative numbers, one per GPU, not all zero";
  EXPECT_EQ(SetModelOption(m, "tensor_split", OptionValue(std::vector<double>{0, 0})).message(),
            expected);
  EXPECT_EQ(SetModelOption(m, "tensor_split", OptionValue(std::vector<double>{2, -1})).message(),
            expected);
  EXPECT_EQ(SetModelOption(m, "tensor_split", OptionValue(std::vector<double>{})).message(),
            expected);
  EXPECT_EQ(SetModelOption(m, "tensor_split", OptionValue(std::vector<std::string>{"1"})).message(),
            expected);
  EXPECT_EQ(SetModelOption(m, "tensor_split", OptionValue(int64_t{1})).message(), expected);
  EXPECT_TRUE(m.tensor_split.empty());
  EXPECT_TRUE(SetModelOption(m, "tensor_split", OptionValue(std::vector<double>{3, 0, 1})).ok());
  // extra_args still wants strings: numbers are not silently turned into text.
  EXPECT_EQ(SetModelOption(m, "extra_args", OptionValue(std::vector<double>{1})).message(),
            "expected an array of strings");
  auto listed = SetModelOptions(m);
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].first, "cache_type_v");
  EXPECT_EQ(std::get<std::string>(listed[0].second), "q4_0");
  EXPECT_EQ(listed[1].first, "kv_type");
  EXPECT_EQ(listed[2].first, "tensor_split");
  EXPECT_EQ(std::get<std::vector<double>>(listed[2].second), (std::vector<double>{3, 0, 1}));
}

TEST(ModelOptionTest, FlmTagIsAFastFlowLmCheckpointName) {
  ModelSettings m;
  EXPECT_TRUE(SetModelOption(m, "flm", OptionValue(std::string("gpt-oss:20b"))).ok());
  EXPECT_EQ(m.flm, "gpt-oss:20b");
  const std::string expected = "expected a FastFlowLM model tag such as \"llama3.2:1b\"";
  // Not a path, not a flag, not empty: it goes onto flm's command line.
  EXPECT_EQ(SetModelOption(m, "flm", OptionValue(std::string("../x"))).message(), expected);
  EXPECT_EQ(SetModelOption(m, "flm", OptionValue(std::string("a b"))).message(), expected);
  EXPECT_EQ(SetModelOption(m, "flm", OptionValue(std::string(""))).message(), expected);
  EXPECT_EQ(SetModelOption(m, "flm", OptionValue(int64_t{1})).message(), expected);
  EXPECT_EQ(m.flm, "gpt-oss:20b");
  EXPECT_FALSE(ValidFlmTag(std::string(65, 'a')));
  EXPECT_FALSE(ValidFlmTag("--port"));
}

TEST(ModelOptionTest, SpeculativeOptions) {
  ModelSettings m;
  EXPECT_TRUE(SetModelOption(m, "draft", OptionValue(std::string("qwen3:0.6b"))).ok());
  EXPECT_TRUE(SetModelOption(m, "speculative", OptionValue(std::string("ngram"))).ok());
  EXPECT_TRUE(SetModelOption(m, "draft_max", OptionValue(int64_t{32})).ok());
  EXPECT_TRUE(SetModelOption(m, "draft_min", OptionValue(int64_t{0})).ok());
  EXPECT_EQ(m.draft, "qwen3:0.6b");
  EXPECT_EQ(m.speculative, "ngram");
  EXPECT_EQ(m.draft_max, 32);
  EXPECT_EQ(m.draft_min, 0);
  EXPECT_EQ(SetModelOption(m, "speculative", OptionValue(std::string("eagle"))).message(),
            "expected auto, off, ngram, draft or mtp");
  EXPECT_EQ(SetModelOption(m, "draft_max", OptionValue(int64_t{0})).message(),
            "expected 1 to 1024 tokens");
  EXPECT_EQ(m.speculative, "ngram");
}

// Every variable zest reads is a setting `zest config` shows with its origin.
TEST_F(SettingsTest, TheHuggingFaceCacheFollowsHuggingFaceHubsOrder) {
  struct Case {
    std::map<std::string, std::string> env;
    std::string cache;
    std::string from;  // the variable `zest config` names
  };
  const std::vector<Case> cases = {
      {{{"HF_HUB_CACHE", "/c"}, {"HF_HOME", "/h"}}, "/c", "HF_HUB_CACHE"},
      {{{"HF_HOME", "/h"}, {"HOME", "/home/u"}}, "/h/hub", "HF_HOME"},
      {{{"XDG_CACHE_HOME", "/x"}, {"HOME", "/home/u"}}, "/x/huggingface/hub", "XDG_CACHE_HOME"},
      {{{"HOME", "/home/u"}, {"HF_HUB_CACHE", ""}}, "/home/u/.cache/huggingface/hub", ""},
  };
  for (const Case& c : cases) {
    env_ = c.env;
    env_["ZEST_HOME"] = home_.string();
    auto loaded = Load();
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    EXPECT_EQ(loaded->settings.hf_hub_cache, c.cache);
    EXPECT_EQ(Origin(*loaded, "models.hf_hub_cache").detail, c.from) << c.cache;
  }
}

// Ollama's and LM Studio's stores: their own defaults under HOME, the
// directory given instead, or none when turned off; no HOME, no home's.
TEST_F(SettingsTest, OtherToolsStoresHaveTheirDefaultsAndCanBeTurnedOff) {
  env_["HOME"] = "/home/u";
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->settings.ollama_roots,
            (std::vector<fs::path>{"/home/u/.ollama/models", "/usr/share/ollama/.ollama/models"}));
  EXPECT_EQ(loaded->settings.lmstudio_roots,
            (std::vector<fs::path>{"/home/u/.lmstudio/models", "/home/u/.cache/lm-studio/models"}));

  env_["OLLAMA_MODELS"] = "/o";
  env_["ZEST_LMSTUDIO_MODELS"] = "/l";
  loaded = Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->settings.ollama_roots, (std::vector<fs::path>{"/o"}));
  EXPECT_EQ(loaded->settings.lmstudio_roots, (std::vector<fs::path>{"/l"}));
  EXPECT_EQ(Origin(*loaded, "models.ollama_dir").detail, "OLLAMA_MODELS");

  WriteConfig("[models]\nollama = false\nlmstudio = false\n");
  loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->settings.ollama_roots.empty());
  EXPECT_TRUE(loaded->settings.lmstudio_roots.empty());

  env_ = {{"ZEST_HOME", home_.string()}};  // no HOME
  fs::remove(home_ / "config.toml");
  loaded = Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->settings.ollama_roots,
            (std::vector<fs::path>{"/usr/share/ollama/.ollama/models"}));
  EXPECT_TRUE(loaded->settings.lmstudio_roots.empty());
}

TEST_F(SettingsTest, HubPullHardwareAndRuntimeVariablesAreSettings) {
  env_["HF_ENDPOINT"] = "http://mirror.example/";
  env_["HF_TOKEN"] = "hf_secret";
  env_["ZEST_PULL_CONNECTIONS"] = "8";
  env_["ZEST_SYSFS_ROOT"] = "/fixture/sys";
  env_["XDG_RUNTIME_DIR"] = "/run/user/1000";
  env_["ZEST_ENGINE_ROOTFS"] = "/somewhere/else";
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const Settings& s = loaded->settings;
  EXPECT_EQ(s.hf_endpoint, "http://mirror.example");
  EXPECT_EQ(s.hf_token, "hf_secret");
  EXPECT_EQ(s.pull_connections, 8);
  EXPECT_EQ(s.sysfs_root, "/fixture/sys");
  EXPECT_EQ(s.procfs_root, "/proc");
  EXPECT_EQ(s.runtime_dir, "/run/user/1000");
  EXPECT_EQ(s.engine_rootfs, "/somewhere/else");
  EXPECT_EQ(Origin(*loaded, "hub.token").value, "(set)");  // a secret
  EXPECT_EQ(Origin(*loaded, "pull.connections").detail, "ZEST_PULL_CONNECTIONS");
  env_["ZEST_PULL_CONNECTIONS"] = "99";
  EXPECT_FALSE(Load().ok());
  // Without ZEST_ENGINE_ROOTFS: where scripts/provision-engines.sh puts it.
  env_.erase("ZEST_PULL_CONNECTIONS");
  env_.erase("ZEST_ENGINE_ROOTFS");
  env_["XDG_CACHE_HOME"] = "/cache";
  loaded = Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->settings.engine_rootfs, ::geteuid() == 0
                                                ? fs::path("/var/cache/zest/engines/debian-sid")
                                                : fs::path("/cache/zest/engines/debian-sid"));
}

// Issue 52, 13: hub.token is a secret as server.api_key is.
TEST_F(SettingsTest, AConfigFileHoldingTheHubTokenMustBePrivate) {
  WriteConfig("[hub]\ntoken = \"hf_secret\"\n");
  for (int mode : {0644, 0640}) {
    ::chmod((home_ / "config.toml").c_str(), mode);
    auto refused = Load();
    ASSERT_FALSE(refused.ok()) << mode;
    EXPECT_NE(refused.status().message().find("it holds hub.token and must be private"),
              std::string::npos)
        << refused.status().message();
  }
  ::chmod((home_ / "config.toml").c_str(), 0600);
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->settings.hf_token, "hf_secret");
}

TEST_F(SettingsTest, ApiKeyIsNeverPrintedAndItsConfigFileMustBePrivate) {
  WriteConfig(
      "[server]\napi_key = \"secret-value\"\ncors_origins = [\"https://a.example\", "
      "\"https://b.example\"]\n");
  ::chmod((home_ / "config.toml").c_str(), 0644);
  auto refused = Load();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("must be private"), std::string::npos);
  ::chmod((home_ / "config.toml").c_str(), 0600);
  auto loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->settings.api_key, "secret-value");
  EXPECT_EQ(loaded->settings.cors_origins, "https://a.example,https://b.example");
  EXPECT_EQ(Origin(*loaded, "server.api_key").value, "(set)");
}

TEST_F(SettingsTest, ConfigWritableByOthersIsRefused) {
  WriteConfig("[server]\nport = 1234\n");
  ::chmod((home_ / "config.toml").c_str(), 0664);
  auto refused = Load();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("mode 0664"), std::string::npos);
}

TEST_F(SettingsTest, WriteFileAtomicallySetsTheModeAndReplaces) {
  fs::path file = home_ / "secret.txt";
  ASSERT_TRUE(WriteFileAtomically(file, "one", 0600).ok());
  ASSERT_TRUE(WriteFileAtomically(file, "two", 0600).ok());
  struct stat st {};
  ::stat(file.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "two");
  int leftovers = 0;
  for (const auto& entry : fs::directory_iterator(home_))
    leftovers += entry.path().filename().string().starts_with(".secret") ? 1 : 0;
  EXPECT_EQ(leftovers, 0);
}

}  // namespace
}  // namespace zest::config
