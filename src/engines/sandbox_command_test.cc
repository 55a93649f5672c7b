// SandboxCommand, the one builder of bubblewrap command lines, as argument
// lists: the isolation every view shares, what each view shows (the
// bridge's sandbox too), and the order of the mounts (bwrap applies them in
// order, so a later one lies over an earlier one). sandbox_test.cc runs
// them for real.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "engines/bridged_command.h"
#include "engines/sandbox.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;
using Argv = std::vector<std::string>;

const Argv kIsolation = {"--die-with-parent", "--unshare-pid",        "--unshare-ipc",
                         "--unshare-uts",     "--unshare-cgroup-try", "--new-session"};

// Where `option` followed by `values` starts in `argv`; npos when it does not.
std::size_t Find(const Argv& argv, const Argv& option_and_values) {
  auto at =
      std::search(argv.begin(), argv.end(), option_and_values.begin(), option_and_values.end());
  return at == argv.end() ? std::string::npos : static_cast<std::size_t>(at - argv.begin());
}

std::size_t Count(const Argv& argv, const std::string& item) {
  return static_cast<std::size_t>(std::count(argv.begin(), argv.end(), item));
}

TEST(SandboxCommand, EveryViewIsolatesAlikeAndEndsWithTheSeparator) {
  for (SandboxView view : {SandboxView::kSystemFiles, SandboxView::kHostWritable}) {
    SandboxSpec spec;
    spec.view = view;
    spec.rootfs = "/srv/rootfs";  // keeps kSystemFiles independent of this host
    Argv argv = SandboxCommand(spec);
    ASSERT_GT(argv.size(), kIsolation.size() + 2);
    EXPECT_EQ(argv.front(), "bwrap");
    EXPECT_EQ(Argv(argv.begin() + 1, argv.begin() + 1 + kIsolation.size()), kIsolation);
    EXPECT_EQ(Count(argv, "--unshare-net"), 1u);
    EXPECT_EQ(Count(argv, "--cap-drop"), 0u);
    EXPECT_EQ(argv.back(), "--");
    EXPECT_EQ(Count(argv, "--"), 1u);
  }
}

TEST(SandboxCommand, NetworkAndCapabilitiesAreTheCallersChoice) {
  SandboxSpec spec;
  spec.bwrap = "/usr/bin/bwrap";
  spec.rootfs = "/srv/rootfs";
  spec.own_network = false;
  spec.drop_capabilities = true;
  Argv argv = SandboxCommand(spec);
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");
  EXPECT_EQ(Count(argv, "--unshare-net"), 0u);
  EXPECT_NE(Find(argv, {"--cap-drop", "ALL"}), std::string::npos);
  EXPECT_EQ(Count(argv, "--cap-add"), 0u);
  spec.keep_capabilities = {"CAP_SYS_ADMIN"};
  EXPECT_NE(Find(SandboxCommand(spec), {"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"}),
            std::string::npos);
  spec.drop_capabilities = false;  // nothing dropped: nothing to keep
  EXPECT_EQ(Count(SandboxCommand(spec), "--cap-add"), 0u);
}

// The outer sandbox of a TCP-only engine: the system files, and of the
// rest only what the bridge and the engine's own bwrap use: the bridge's
// file, the engine's rootfs and model file (its link resolved: a Hugging
// Face snapshot link shows the blob, not the store) read-only, the socket's
// directory writable, zest's home hidden; as root one capability kept.
TEST(SandboxCommand, BridgeSandboxBindsOnlyWhatTheBridgeAndTheEngineUse) {
  TempDir home;
  WriteFile(home.path() / "blobs/abc", "weights", 0644);
  fs::create_directories(home.path() / "snapshots");
  fs::create_symlink("../blobs/abc", home.path() / "snapshots/m.gguf");
  EngineLocation engine;
  engine.source = EngineSource::kRootfs;
  engine.binary = "/usr/bin/whisper-server";
  engine.rootfs = "/srv/rootfs";
  LaunchSpec spec;
  spec.hidden = {home.path()};
  spec.socket = "/run/zest-x/engine-1/engine.sock";
  spec.model_files = {home.path() / "snapshots/m.gguf"};
  Argv argv = SandboxCommand(BridgeSandbox(engine, spec, "/usr/local/bin/zest"));
  const std::string h = home.path().string();
  const std::size_t hidden = Find(argv, {"--tmpfs", h});
  const std::size_t run = Find(argv, {"--bind", "/run/zest-x/engine-1", "/run/zest-x/engine-1"});
  const std::size_t model = Find(
      argv,
      {"--ro-bind", fs::canonical(home.path() / "blobs/abc").string(), h + "/snapshots/m.gguf"});
  for (std::size_t at : {hidden, run, model}) {
    ASSERT_NE(at, std::string::npos) << ::testing::PrintToString(argv);
  }
  EXPECT_LT(hidden, model);
  EXPECT_NE(Find(argv, {"--ro-bind", "/usr/local/bin/zest", "/usr/local/bin/zest"}),
            std::string::npos);
  EXPECT_NE(Find(argv, {"--ro-bind", "/srv/rootfs", "/srv/rootfs"}), std::string::npos);
  EXPECT_NE(Find(argv, {"--ro-bind", "/usr", "/usr"}), std::string::npos);  // the host's
  EXPECT_EQ(Find(argv, {"--ro-bind", "/", "/"}), std::string::npos);
  EXPECT_EQ(Count(argv, "--unshare-net"), 1u);
  EXPECT_EQ(Count(argv, "--bind"), 1u);  // the socket's directory, nothing else writable
  if (::geteuid() == 0) {
    EXPECT_NE(Find(argv, {"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"}), std::string::npos);
    EXPECT_EQ(Count(argv, "--cap-add"), 1u);
  } else {
    EXPECT_EQ(Count(argv, "--cap-drop"), 0u);  // bwrap gives a user none
  }
}

// A tool that reads no configuration (ffmpeg) sees of the host's /etc only
// what the dynamic linker needs; an engine sees all of it (GPU drivers
// keep their settings there).
TEST(SandboxCommand, SystemFilesViewOnTheHostWithOrWithoutItsEtc) {
  SandboxSpec spec;
  Argv whole = SandboxCommand(spec);
  EXPECT_NE(Find(whole, {"--ro-bind-try", "/etc", "/etc"}), std::string::npos);
  spec.whole_etc = false;
  Argv narrow = SandboxCommand(spec);
  EXPECT_EQ(Find(narrow, {"--ro-bind-try", "/etc", "/etc"}), std::string::npos);
  EXPECT_NE(Find(narrow, {"--ro-bind-try", "/etc/alternatives", "/etc/alternatives"}),
            std::string::npos);
  EXPECT_NE(Find(narrow, {"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"}),
            std::string::npos);
  EXPECT_NE(Find(narrow, {"--ro-bind", "/usr", "/usr"}), std::string::npos);
}

TEST(SandboxCommand, HostWritableViewKeepsTheHostsFilesAndDevices) {
  SandboxSpec spec;
  spec.view = SandboxView::kHostWritable;
  spec.mounts.hidden = {"/home/u/.local/share/zest"};
  Argv argv = SandboxCommand(spec);
  Argv tail(argv.begin() + 1 + kIsolation.size(), argv.end());
  EXPECT_EQ(tail, (Argv{"--unshare-net", "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc",
                        "/proc", "--tmpfs", "/home/u/.local/share/zest", "--"}));
}

// The engine sandbox over a rootfs: its /usr and /etc, a private /tmp, and
// the mounts after it, in order; nothing of the host's / as a whole.
TEST(SandboxCommand, SystemFilesViewOverARootfs) {
  SandboxSpec spec;
  spec.rootfs = "/srv/rootfs";
  spec.binary = "/usr/bin/llama-server";  // inside the rootfs: not bound again
  spec.mounts.hidden = {"/home/u/zest"};
  spec.mounts.writable = {"/home/u/zest/slots"};
  spec.mounts.readonly = {"/nonexistent/m.gguf"};  // bound as given when it cannot be resolved
  Argv argv = SandboxCommand(spec);
  const std::size_t usr = Find(argv, {"--ro-bind", "/srv/rootfs/usr", "/usr"});
  const std::size_t etc = Find(argv, {"--ro-bind", "/srv/rootfs/etc", "/etc"});
  const std::size_t tmp = Find(argv, {"--tmpfs", "/tmp"});
  const std::size_t gpu = Find(argv, {"--dev-bind-try", "/dev/dri", "/dev/dri"});
  const std::size_t hidden = Find(argv, {"--tmpfs", "/home/u/zest"});
  const std::size_t writable = Find(argv, {"--bind", "/home/u/zest/slots", "/home/u/zest/slots"});
  const std::size_t readonly =
      Find(argv, {"--ro-bind", "/nonexistent/m.gguf", "/nonexistent/m.gguf"});
  for (std::size_t at : {usr, etc, tmp, gpu, hidden, writable, readonly}) {
    ASSERT_NE(at, std::string::npos) << ::testing::PrintToString(argv);
  }
  EXPECT_LT(tmp, hidden);
  EXPECT_LT(hidden, writable);
  EXPECT_LT(writable, readonly);
  EXPECT_EQ(Find(argv, {"--ro-bind", "/", "/"}), std::string::npos);
  EXPECT_EQ(Count(argv, "/usr/bin/llama-server"), 0u);
}

// A host engine built outside the system directories gets its own
// directory read-only, after the hidden directories so that a build below
// zest's home still shows.
TEST(SandboxCommand, SystemFilesViewBindsAHostBinaryOutsideTheSystemDirectories) {
  TempDir build;
  WriteFile(build.path() / "bin/llama-server", "#!/bin/sh\n", 0755);
  SandboxSpec spec;
  spec.binary = build.path() / "bin/llama-server";
  spec.mounts.hidden = {build.path()};
  Argv argv = SandboxCommand(spec);
  const std::string tree = fs::canonical(build.path() / "bin").string();
  const std::size_t bound = Find(argv, {"--ro-bind", tree, tree});
  ASSERT_NE(bound, std::string::npos) << ::testing::PrintToString(argv);
  EXPECT_LT(Find(argv, {"--tmpfs", build.path().string()}), bound);

  // A system binary: /usr is bound once, as system files, not again as
  // the binary's tree.
  spec.binary = "/usr/bin/env";
  spec.mounts = {};
  Argv system = SandboxCommand(spec);
  EXPECT_EQ(Count(system, "/usr"), 2u) << ::testing::PrintToString(system);
}

// Issue 52, 4: ~/.local/bin's parent holds zest's home, ~/bin's is $HOME;
// neither is ever bound, only the binary's directory and the prefix's lib/.
TEST(SandboxCommand, AHostBinaryNeverBindsATreeHoldingHomeOrZestsHome) {
  TempDir user;
  const fs::path home = fs::canonical(user.path());
  const fs::path zest_home = home / ".local/share/zest";
  fs::create_directories(zest_home);
  fs::create_directories(home / ".local/lib");
  WriteFile(home / ".local/bin/llama-server", "#!/bin/sh\n", 0755);
  WriteFile(home / "bin/llama-server", "#!/bin/sh\n", 0755);
  WriteFile(home / "llama-server", "#!/bin/sh\n", 0755);
  const std::vector<fs::path> secrets = {zest_home, home};
  using Paths = std::vector<fs::path>;
  EXPECT_EQ(OwnBinaryBinds(home / ".local/bin/llama-server", secrets),
            (Paths{home / ".local/bin", home / ".local/lib"}));
  EXPECT_EQ(OwnBinaryBinds(home / "bin/llama-server", secrets), Paths{home / "bin"});
  EXPECT_EQ(OwnBinaryBinds(home / "llama-server", secrets), Paths{home / "llama-server"});
  // zest's home outside $HOME, the binary's directory holding it.
  EXPECT_EQ(OwnBinaryBinds(home / "bin/llama-server", {home / "bin/zest"}),
            Paths{home / "bin/llama-server"});

  // In the command line: nothing binds $HOME or ~/.local.
  SandboxSpec spec;
  spec.binary = home / ".local/bin/llama-server";
  spec.user_home = home;
  spec.mounts.hidden = {zest_home};
  Argv argv = SandboxCommand(spec);
  EXPECT_EQ(Count(argv, home.string()), 0u) << ::testing::PrintToString(argv);
  EXPECT_EQ(Count(argv, (home / ".local").string()), 0u) << ::testing::PrintToString(argv);
}

// A caller's bind that holds a hidden directory lies under its tmpfs; one
// below it lies over it.
TEST(SandboxCommand, TheHiddenTmpfsComesAfterEveryBindThatHoldsIt) {
  SandboxSpec spec;
  spec.mounts.hidden = {"/srv/zest"};
  spec.mounts.writable = {"/srv", "/srv/zest/run/engine-1"};
  Argv argv = SandboxCommand(spec);
  const std::size_t tmpfs = Find(argv, {"--tmpfs", "/srv/zest"});
  ASSERT_NE(tmpfs, std::string::npos);
  EXPECT_LT(Find(argv, {"--bind", "/srv", "/srv"}), tmpfs) << ::testing::PrintToString(argv);
  const std::size_t run =
      Find(argv, {"--bind", "/srv/zest/run/engine-1", "/srv/zest/run/engine-1"});
  ASSERT_NE(run, std::string::npos);
  EXPECT_GT(run, tmpfs);
}

}  // namespace
}  // namespace zest::engines
