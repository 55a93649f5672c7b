#include "engines/engine_locator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engines/test_util.h"

namespace zest::engines {
namespace {

using testing::TempDir;
using testing::WriteFile;

constexpr const char* kScript = "#!/bin/sh\necho fake\n";

LocateOptions Options(std::filesystem::path configured, std::string path_env,
                      std::filesystem::path rootfs) {
  LocateOptions options;
  options.configured = std::move(configured);
  options.path_env = std::move(path_env);
  options.rootfs = std::move(rootfs);
  return options;
}

// True when `argv` has `a b c` as consecutive elements.
bool HasSequence(const std::vector<std::string>& argv, const std::vector<std::string>& seq) {
  return std::search(argv.begin(), argv.end(), seq.begin(), seq.end()) != argv.end();
}

TEST(LocateLlamaServer, ConfiguredPathMissingIsInvalidArgumentNamingThePath) {
  TempDir dir;
  auto missing = dir.path() / "nope/llama-server";
  auto result = LocateEngine(Options(missing, "", dir.path()));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find(missing.string()), std::string::npos);
}

TEST(LocateLlamaServer, ConfiguredPathNotExecutableIsInvalidArgument) {
  TempDir dir;
  WriteFile(dir.path() / "llama-server", kScript, 0644);
  auto result = LocateEngine(Options(dir.path() / "llama-server", "", ""));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kInvalidArgument);
}

TEST(LocateLlamaServer, ConfiguredPathWinsOverPath) {
  TempDir dir;
  WriteFile(dir.path() / "mine/llama-server", kScript, 0755);
  WriteFile(dir.path() / "bin/llama-server", kScript, 0755);
  auto result =
      LocateEngine(Options(dir.path() / "mine/llama-server", (dir.path() / "bin").string(), ""));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->source, EngineSource::kConfigured);
  EXPECT_EQ(result->binary, dir.path() / "mine/llama-server");
  // Wrapped in the sandbox where bubblewrap is installed: the engine comes last.
  auto argv = result->Command({"x", "--version"}, {});
  const std::string binary = (dir.path() / "mine/llama-server").string();
  if (result->sandboxed()) {
    EXPECT_TRUE(HasSequence(argv, {"--", binary, "--version"}));
  } else {
    EXPECT_EQ(argv, (std::vector<std::string>{binary, "--version"}));
  }
}

TEST(LocateLlamaServer, PathSearchTakesTheFirstExecutableRegularFile) {
  TempDir dir;
  WriteFile(dir.path() / "a/llama-server", kScript, 0644);             // not executable
  std::filesystem::create_directories(dir.path() / "b/llama-server");  // a directory
  WriteFile(dir.path() / "c/llama-server", kScript, 0755);
  WriteFile(dir.path() / "d/llama-server", kScript, 0755);
  std::string path_env = "::" + (dir.path() / "a").string() + ":" + (dir.path() / "b").string() +
                         ":" + (dir.path() / "c").string() + ":" + (dir.path() / "d").string();
  auto result = LocateEngine(Options("", path_env, dir.path() / "no-rootfs"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->source, EngineSource::kSystem);
  EXPECT_EQ(result->binary, dir.path() / "c/llama-server");
  EXPECT_STREQ(EngineSourceName(result->source), "system");
}

TEST(LocateLlamaServer, PathWinsOverRootfs) {
  TempDir dir;
  WriteFile(dir.path() / "bin/llama-server", kScript, 0755);
  WriteFile(dir.path() / "root/usr/bin/llama-server", kScript, 0755);
  auto result = LocateEngine(Options("", (dir.path() / "bin").string(), dir.path() / "root"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->source, EngineSource::kSystem);
}

TEST(LocateLlamaServer, FindsTheRootfs) {
  TempDir dir;
  WriteFile(dir.path() / "root/usr/bin/llama-server", kScript, 0755);
  auto result = LocateEngine(Options("", (dir.path() / "empty").string(), dir.path() / "root"));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->source, EngineSource::kRootfs);
  EXPECT_EQ(result->binary, "/usr/bin/llama-server");
  EXPECT_EQ(result->rootfs, dir.path() / "root");
  EXPECT_EQ(result->bwrap.filename(), "bwrap");
}

TEST(LocateLlamaServer, RootfsWithoutAnExecutableEngineIsNotFound) {
  TempDir dir;
  WriteFile(dir.path() / "root/usr/bin/llama-server", kScript, 0644);
  auto result = LocateEngine(Options("", "", dir.path() / "root"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(result.status().message().find("make engines"), std::string::npos);
  EXPECT_NE(result.status().message().find("provision-engines.sh"), std::string::npos);
}

TEST(EngineLocation, RootfsCommandIsSandboxedWithBinds) {
  EngineLocation location;
  location.source = EngineSource::kRootfs;
  location.binary = "/usr/bin/llama-server";
  location.rootfs = "/srv/sid";
  location.bwrap = "/usr/bin/bwrap";
  SandboxMounts mounts;
  mounts.writable = {"/run/z/engine-1"};
  mounts.readonly = {"/models/m.gguf"};
  mounts.hidden = {"/home/u/.local/share/zest"};
  auto argv = location.Command({"llama-server", "--host", "/run/z/engine-1/engine.sock"}, mounts);
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");
  for (const char* option : {"--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                             "--unshare-uts", "--new-session"}) {
    EXPECT_TRUE(HasSequence(argv, {option})) << option;
  }
  EXPECT_TRUE(HasSequence(argv, {"--ro-bind", "/srv/sid/usr", "/usr"}));
  EXPECT_TRUE(HasSequence(argv, {"--ro-bind", "/srv/sid/etc", "/etc"}));
  EXPECT_TRUE(HasSequence(argv, {"--dev", "/dev"}));
  EXPECT_TRUE(HasSequence(argv, {"--proc", "/proc"}));
  EXPECT_TRUE(HasSequence(argv, {"--bind", "/run/z/engine-1", "/run/z/engine-1"}));
  EXPECT_TRUE(HasSequence(argv, {"--ro-bind", "/models/m.gguf", "/models/m.gguf"}));
  EXPECT_TRUE(HasSequence(argv, {"--tmpfs", "/home/u/.local/share/zest"}));
  EXPECT_TRUE(
      HasSequence(argv, {"--", "/usr/bin/llama-server", "--host", "/run/z/engine-1/engine.sock"}));
  EXPECT_FALSE(HasSequence(argv, {"--ro-bind", "/", "/"}));
  // Binds come after the private /tmp so a directory under /tmp is visible.
  auto tmpfs = std::find(argv.begin(), argv.end(), "--tmpfs");
  auto bind = std::find(argv.begin(), argv.end(), "--bind");
  EXPECT_LT(tmpfs, bind);
}

TEST(EngineLocation, RootfsCommandFallsBackToBwrapByName) {
  EngineLocation location;
  location.source = EngineSource::kRootfs;
  location.binary = "/usr/bin/llama-server";
  location.rootfs = "/srv/sid";
  EXPECT_EQ(location.Command({"llama-server"}, {}).front(), "bwrap");
}

TEST(EngineLocation, SystemEngineIsSandboxedOverTheHostsSystemFilesWhenBwrapExists) {
  EngineLocation location;
  location.source = EngineSource::kSystem;
  location.binary = "/usr/bin/llama-server";
  location.bwrap = "/usr/bin/bwrap";
  auto argv = location.Command({"llama-server", "--version"}, {});
  EXPECT_TRUE(HasSequence(argv, {"--unshare-net"}));
  EXPECT_TRUE(HasSequence(argv, {"--ro-bind", "/usr", "/usr"}));
  EXPECT_TRUE(HasSequence(argv, {"--", "/usr/bin/llama-server", "--version"}));
  EXPECT_NE(location.SandboxNote().find("host's"), std::string::npos);
  // A build tree outside the system directories is bound read-only too.
  location.source = EngineSource::kConfigured;
  location.binary = "/bin/sh";  // a real file, so it can be resolved
  argv = location.Command({"x"}, {});
  EXPECT_EQ(argv.back(), "/bin/sh");
  // Without bubblewrap it runs bare, and says so.
  location.bwrap.clear();
  EXPECT_FALSE(location.sandboxed());
  EXPECT_EQ(location.Command({"x", "-v"}, {}), (std::vector<std::string>{"/bin/sh", "-v"}));
  EXPECT_NE(location.SandboxNote().find("bubblewrap is not installed"), std::string::npos);
}

TEST(EngineLocation, EnvironmentIsTheEnginesOwn) {
  EngineLocation location;
  location.environment = {"PATH=/usr/bin:/bin", "HOME=/tmp", "GGML_VK_VISIBLE_DEVICES=0"};
  auto env = location.Environment({"LP_NUM_THREADS=2", "HOME=/elsewhere"});
  EXPECT_NE(std::find(env.begin(), env.end(), "GGML_VK_VISIBLE_DEVICES=0"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "LP_NUM_THREADS=2"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "HOME=/elsewhere"), env.end());
  EXPECT_EQ(std::find(env.begin(), env.end(), "HOME=/tmp"), env.end());
}

}  // namespace
}  // namespace zest::engines
