// Where the settings and zest's environment send the engine search
// (engine_search.h).
#include "app/engine_search.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace zest::app {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test, and puts it back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(EngineSearchFor, TheSettingsBinariesAndRootfsThenZestsPathAndTmpdir) {
  config::Settings s;
  s.llama_server = "/opt/llama/llama-server";
  s.whisper_server = "/opt/whisper/whisper-server";
  s.sd_server = "/opt/sd/sd-server";
  s.flm = "/opt/flm/flm";
  s.engine_rootfs = "/var/cache/zest/engines/debian-sid";
  ScopedEnv path("PATH", "/x/bin:/usr/bin");
  ScopedEnv tmp("TMPDIR", "/scratch");
  engines::EngineSearch search = EngineSearchFor(s);
  EXPECT_EQ(search.llama_server, s.llama_server);
  EXPECT_EQ(search.whisper_server, s.whisper_server);
  EXPECT_EQ(search.sd_server, s.sd_server);
  EXPECT_EQ(search.flm, s.flm);
  EXPECT_EQ(search.rootfs, s.engine_rootfs);
  EXPECT_EQ(search.path_env, "/x/bin:/usr/bin");
  EXPECT_EQ(search.tmp_dir, fs::path("/scratch"));
  ASSERT_TRUE(search.getenv);
  EXPECT_EQ(search.getenv("TMPDIR"), "/scratch");
  // The bridge is this very binary.
  EXPECT_EQ(search.self_exe, fs::canonical("/proc/self/exe"));
}

TEST(EngineSearchFor, AnEmptyTmpdirMeansTmp) {
  ScopedEnv tmp("TMPDIR", "");
  EXPECT_EQ(EngineSearchFor({}).tmp_dir, fs::path("/tmp"));
}

}  // namespace
}  // namespace zest::app
