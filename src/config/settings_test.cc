#include "config/settings.h"

#include <gtest/gtest.h>

#include <fstream>

namespace zest::config {
namespace {

namespace fs = std::filesystem;

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = fs::temp_directory_path() / ("zest-settings-" + std::to_string(::getpid()));
    fs::create_directories(home_);
    env_["ZEST_HOME"] = home_.string();
  }
  void TearDown() override { fs::remove_all(home_); }

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

  fs::path home_;
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

TEST_F(SettingsTest, MalformedFileIsAnErrorWithLine) {
  WriteConfig("[server]\nport = \n");
  auto loaded = Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("config.toml:2"), std::string::npos)
      << loaded.status().message();
}

}  // namespace
}  // namespace zest::config
