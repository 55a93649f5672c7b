// Tests against the real llama-server that `make engines` provisions (`make
// test` provisions it first, so these never skip for lack of an engine).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "config/settings.h"
#include "core/base64.h"
#include "engines/engine_locator.h"
#include "engines/engine_probe.h"
#include "engines/llama_server_flags.h"
#include "engines/process.h"
#include "engines/test_util.h"
#include "models/gguf_reader.h"
#include "models/projector_info.h"
#include "tools/outetts_model.h"
#include "tools/png_image.h"
#include "tools/synthetic_model.h"
#include "tools/vision_projector.h"

namespace zest::engines {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// Where `zest serve` would find it with this process's settings.
EngineLocation RealEngine() {
  auto loaded = config::LoadSettings({config::ProcessEnv, {}, std::nullopt});
  EXPECT_TRUE(loaded.ok());
  LocateOptions options;
  options.path_env = config::ProcessEnv("PATH").value_or("");
  if (loaded.ok()) options.rootfs = loaded->settings.engine_rootfs;
  auto location = LocateEngine(options);
  EXPECT_TRUE(location.ok()) << location.status().ToString();
  return location.ok() ? *location : EngineLocation{};
}

// Runs `argv` to completion and returns its output lines; expects it to
// exit 0 unless told otherwise.
std::vector<std::string> RunToEnd(const std::vector<std::string>& argv,
                                  std::vector<std::string> env = {}, bool expect_success = true) {
  SpawnOptions options;
  options.argv = argv;
  options.env = std::move(env);
  auto process = Process::Spawn(options);
  EXPECT_TRUE(process.ok()) << process.status().ToString();
  if (!process.ok()) return {};
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while ((*process)->Running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  (*process)->Terminate();
  if (expect_success) {
    EXPECT_EQ(*(*process)->ExitStatus(), 0) << Process::DescribeExit(*(*process)->ExitStatus());
  }
  return (*process)->output().Tail(1000);
}

bool Contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// Host pids whose command line mentions `needle` (engines inside bwrap's pid
// namespace are still visible here under their host pids).
std::vector<pid_t> PidsMentioning(const std::string& needle) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* entry = readdir(proc)) {
    pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::string cmdline = testing::ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
    if (cmdline.find(needle) != std::string::npos && !testing::ProcessGone(pid))
      pids.push_back(pid);
  }
  closedir(proc);
  return pids;
}

// Sends `request` (a whole HTTP/1.1 request asking to close the
// connection) over the UNIX socket; the raw HTTP response.
std::string Exchange(const std::filesystem::path& socket_path, const std::string& request) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t got;
      while ((got = recv(fd, buffer, sizeof(buffer), 0)) > 0)
        response.append(buffer, static_cast<std::size_t>(got));
    }
  }
  close(fd);
  return response;
}

// Sends GET /health over the UNIX socket; the raw HTTP response.
std::string GetHealth(const std::filesystem::path& socket_path) {
  return Exchange(socket_path, "GET /health HTTP/1.1\r\nHost: engine\r\nConnection: close\r\n\r\n");
}

TEST(RealEngine, ProbeReportsAVersion) {
  EngineLocation location = RealEngine();
  ProbeOptions options;
  options.env = {"GGML_VK_VISIBLE_DEVICES=0"};
  auto info = ProbeEngine(location, options);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_FALSE(info->version.empty());
  EXPECT_NE(info->version.find("build"), std::string::npos) << info->version;
  std::cout << "engine: " << EngineSourceName(location.source) << " " << location.binary
            << " version " << info->version << ", " << info->devices.size() << " device(s)\n";
  for (const auto& device : info->devices)
    std::cout << "  " << device.name << ": " << device.description << "\n";
}

// A value of the kind each flag takes that this llama-server accepts;
// `files` holds a template, a grammar and a JSON schema to name.
std::vector<std::string> SampleValues(const FlagSpec& spec, const std::filesystem::path& files) {
  const std::string name(spec.names.front());
  auto within = [&spec](double v) { return v >= spec.min && v <= spec.max ? v : spec.min; };
  switch (spec.value) {
    case FlagValue::kNone:
      return {};
    case FlagValue::kInt:
      return {std::to_string(static_cast<long long>(within(1)))};
    case FlagValue::kIntPair:
      return {"1", "2"};
    case FlagValue::kNumber:
      return {std::to_string(within(0.5))};
    case FlagValue::kChoice:
    case FlagValue::kChoiceList:
      return {std::string(spec.choices.front())};
    case FlagValue::kPath:
      if (name == "--grammar-file") return {(files / "g.gbnf").string()};
      if (name == "--json-schema-file") return {(files / "s.json").string()};
      return {(files / "t.jinja").string()};
    case FlagValue::kPathList:
      return {(files / "t.jinja").string()};
    case FlagValue::kScaledPathList:
      return {(files / "t.jinja").string() + ":1"};
    case FlagValue::kText: {
      static const std::map<std::string, std::string> kText = {
          {"--override-kv", "general.name=str:x"},
          {"--logit-bias", "15+1"},
          {"--samplers", "top_k;top_p"},
          {"--sampling-seq", "kp"},
          {"--chat-template", "chatml"},
          {"--chat-template-kwargs", "{}"},
          {"--json-schema", "{}"},
          {"--grammar", "root ::= \"a\""},
          {"--reasoning-effort", "low"}};
      auto it = kText.find(name);
      return {it != kText.end() ? it->second : "x"};
    }
  }
  return {};
}

// The allow-list names only flags this llama-server has: every one of them,
// with a value of its kind, parses (an unknown flag or value is "invalid
// argument"). --list-devices comes last, after the others are parsed.
TEST(RealEngine, EveryAllowedFlagIsOneThisEngineAccepts) {
  TempDir dir;
  testing::WriteFile(dir.path() / "t.jinja", "{{ messages }}", 0644);
  testing::WriteFile(dir.path() / "g.gbnf", "root ::= \"a\"", 0644);
  testing::WriteFile(dir.path() / "s.json", "{}", 0644);
  std::vector<std::string> args = {"llama-server"};
  for (const FlagSpec& spec : LlamaServerFlags().allowed) {
    for (std::string_view name : spec.names) {
      args.emplace_back(name);
      for (std::string& v : SampleValues(spec, dir.path())) args.push_back(std::move(v));
    }
  }
  args.push_back("--list-devices");
  SandboxMounts mounts;
  mounts.readonly = {dir.path()};
  SpawnOptions spawn;
  spawn.argv = RealEngine().Command(args, mounts);
  auto process = Process::Spawn(spawn);
  ASSERT_TRUE(process.ok()) << process.status().ToString();
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       (*process)->Running() && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(10ms);
  }
  (*process)->Terminate();
  auto lines = (*process)->output().Tail(50);
  EXPECT_EQ(*(*process)->ExitStatus(), 0) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Contains(lines, "Available devices")) << ::testing::PrintToString(lines);
}

TEST(RealEngine, VersionThroughCommandAndSpawn) {
  TempDir dir;
  auto lines =
      RunToEnd(RealEngine().Command({"llama-server", "--version"}, {{dir.path()}, {}, {}}));
  EXPECT_TRUE(Contains(lines, "version: ")) << ::testing::PrintToString(lines);
}

// Starts `args` (a llama-server command line without --host) on
// `socket_path`, inside `dir`, and waits until /health answers.
std::unique_ptr<Process> StartServer(const EngineLocation& location, std::vector<std::string> args,
                                     const std::filesystem::path& dir,
                                     const std::filesystem::path& socket_path) {
  args.insert(args.begin() + 1, {"--host", socket_path.string()});
  SpawnOptions options;
  options.argv = location.Command(args, {{dir}, {}, {}});
  auto process = Process::Spawn(options);
  EXPECT_TRUE(process.ok()) << process.status().ToString();
  if (!process.ok()) return nullptr;
  std::string response;
  // 503 while the server is still starting; wait for its 200.
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       response.rfind("HTTP/1.1 200", 0) != 0 && std::chrono::steady_clock::now() < deadline &&
       (*process)->Running();) {
    std::this_thread::sleep_for(50ms);
    if (std::filesystem::exists(socket_path)) response = GetHealth(socket_path);
  }
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u)
      << response << ::testing::PrintToString((*process)->output().Tail(20));
  return std::move(process).value();
}

// Starts llama-server in router mode (it needs no model, which is all these
// tests have) on `socket_path`, inside `dir`, and waits until /health answers.
std::unique_ptr<Process> StartRouter(const EngineLocation& location,
                                     const std::filesystem::path& dir,
                                     const std::filesystem::path& socket_path) {
  std::filesystem::create_directories(dir / "models");
  return StartServer(location, {"llama-server", "--models-dir", (dir / "models").string()}, dir,
                     socket_path);
}

bool WaitNoneMentioning(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!PidsMentioning(needle).empty()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

TEST(RealEngine, ServesOnAUnixSocketInABoundDirAndDiesWithTerminate) {
  TempDir dir;
  auto socket_path = dir.path() / "engine.sock";
  auto process = StartRouter(RealEngine(), dir.path(), socket_path);
  ASSERT_TRUE(process);
  EXPECT_FALSE(PidsMentioning(socket_path.string()).empty());
  process->Terminate(5s);
  EXPECT_TRUE(PidsMentioning(socket_path.string()).empty()) << "the engine outlived Terminate";
}

// The rest look inside the sandbox itself, so they need the rootfs engine.
// A configured or system llama-server (ZEST_LLAMA_SERVER, PATH) is used
// instead of the rootfs; then there is no rootfs sandbox to look into. This
// is a set-up, not a missing tool: `make engines` provisions the rootfs only
// where no other llama-server is found.
constexpr const char* kNotTheRootfs =
    "zest uses a configured or system llama-server here, not the engine rootfs";
TEST(RealEngine, EnvironmentReachesTheSandbox) {
  EngineLocation location = RealEngine();
  if (location.source != EngineSource::kRootfs) GTEST_SKIP() << kNotTheRootfs;
  location.binary = "/usr/bin/env";
  auto lines = RunToEnd(location.Command({"env"}, {}), {"GGML_VK_VISIBLE_DEVICES=0"});
  EXPECT_TRUE(Contains(lines, "GGML_VK_VISIBLE_DEVICES=0")) << ::testing::PrintToString(lines);
}

TEST(RealEngine, SandboxIsReadOnlyExceptBoundDirs) {
  EngineLocation location = RealEngine();
  if (location.source != EngineSource::kRootfs) GTEST_SKIP() << kNotTheRootfs;
  TempDir rw, ro;
  location.binary = "/bin/sh";
  std::string script = "touch /usr/zest-probe 2>/dev/null; echo usr=$?; touch " +
                       (rw.path() / "ok").string() + "; echo rw=$?; touch " +
                       (ro.path() / "no").string() + " 2>/dev/null; echo ro=$?";
  auto lines = RunToEnd(location.Command({"sh", "-c", script}, {{rw.path()}, {ro.path()}, {}}));
  EXPECT_EQ(lines, (std::vector<std::string>{"usr=1", "rw=0", "ro=1"}));
  EXPECT_TRUE(std::filesystem::exists(rw.path() / "ok"));
  EXPECT_FALSE(std::filesystem::exists(location.rootfs / "usr/zest-probe"));
}

}  // namespace
}  // namespace zest::engines

namespace zest::engines {
namespace {

// The sandbox's own guarantee, without the process-group kill: SIGKILL to
// bwrap alone must take llama-server down (--unshare-pid --die-with-parent).
TEST(RealEngine, KillingBwrapAloneTakesTheEngineDown) {
  EngineLocation location = RealEngine();
  if (location.source != EngineSource::kRootfs) GTEST_SKIP() << kNotTheRootfs;
  TempDir dir;
  auto socket_path = dir.path() / "engine.sock";
  auto process = StartRouter(location, dir.path(), socket_path);
  ASSERT_TRUE(process);
  ASSERT_EQ(kill(process->pid(), SIGKILL), 0);
  bool gone = WaitNoneMentioning(socket_path.string(), 5s);
  EXPECT_TRUE(gone) << "llama-server outlived bwrap";
  for (pid_t pid : PidsMentioning(socket_path.string()))
    kill(pid, SIGKILL);  // do not leak on failure
}

}  // namespace
}  // namespace zest::engines

namespace zest::engines {
namespace {

// POSTs `request` as JSON to `path`; the HTTP status and the JSON body.
std::pair<int, nlohmann::json> PostJson(const std::filesystem::path& socket_path,
                                        const std::string& path, const nlohmann::json& request) {
  const std::string body = request.dump();
  const std::string response =
      Exchange(socket_path, "POST " + path +
                                " HTTP/1.1\r\nHost: engine\r\nConnection: close\r\n"
                                "Content-Type: application/json\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body);
  const std::size_t blank = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.1 ", 0) != 0 || blank == std::string::npos) return {0, nullptr};
  return {std::atoi(response.c_str() + 9),
          nlohmann::json::parse(response.substr(blank + 4), nullptr, false)};
}

// POSTs a chat request with `content` as the user's message, asking for one
// token; the HTTP status and the JSON body.
std::pair<int, nlohmann::json> Chat(const std::filesystem::path& socket_path,
                                    const nlohmann::json& content) {
  nlohmann::json message = {{"role", "user"}, {"content", content}};
  const nlohmann::json request = {{"messages", nlohmann::json::array({std::move(message)})},
                                  {"max_tokens", 1}};
  return PostJson(socket_path, "/v1/chat/completions", request);
}

struct VisionPair {
  std::filesystem::path model, projector;
};

// The tiny synthetic model and a projector of `projector_width` (its own
// width when 0) in `dir`.
VisionPair WriteVisionPair(const std::filesystem::path& dir, uint32_t projector_width = 0) {
  const tools::SyntheticModelSpec model = *tools::PresetSpec("tiny");
  const tools::VisionProjectorSpec projector = tools::ProjectorFor(
      projector_width != 0 ? projector_width : model.embedding, model.type, model.name);
  VisionPair pair{dir / "tiny.gguf", dir / "tiny.mmproj.gguf"};
  EXPECT_TRUE(tools::WriteSyntheticModel(model, pair.model).ok());
  EXPECT_TRUE(tools::WriteVisionProjector(projector, pair.projector).ok());
  return pair;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// zest-make-model's model and projector (tools/vision_projector.h) in the
// real engine: an image in an OpenAI chat request is answered, and the
// prompt grows by exactly the projector's image tokens.
TEST(RealEngine, AnImageAddsTheProjectorsImageTokensToThePrompt) {
  TempDir dir;
  const VisionPair pair = WriteVisionPair(dir.path());
  const auto socket_path = dir.path() / "engine.sock";
  const auto start = std::chrono::steady_clock::now();
  auto process = StartServer(RealEngine(),
                             {"llama-server", "-m", pair.model.string(), "--mmproj",
                              pair.projector.string(), "-c", "512", "-np", "1"},
                             dir.path(), socket_path);
  ASSERT_TRUE(process);
  const auto loaded = std::chrono::steady_clock::now();
  // 20x12: not the projector's square, which the engine resizes it to.
  const std::string png = tools::EncodePng(20, 12, tools::GradientRgb(20, 12));
  const nlohmann::json text = {{"type", "text"}, {"text", "What is in this picture?"}};
  const nlohmann::json image = {
      {"type", "image_url"},
      {"image_url", {{"url", "data:image/png;base64," + Base64Encode(png)}}}};

  const auto [with_status, with] = Chat(socket_path, nlohmann::json::array({text, image}));
  const auto answered = std::chrono::steady_clock::now();
  const auto [without_status, without] = Chat(socket_path, nlohmann::json::array({text}));
  ASSERT_EQ(with_status, 200) << with.dump();
  ASSERT_EQ(without_status, 200) << without.dump();
  const int with_tokens = with["usage"]["prompt_tokens"].get<int>();
  const int without_tokens = without["usage"]["prompt_tokens"].get<int>();
  const tools::VisionProjectorSpec projector;  // what ProjectorFor chose, bar width and type
  EXPECT_EQ(with_tokens - without_tokens, static_cast<int>(tools::ImageTokenCount(projector)))
      << with_tokens << " with the image, " << without_tokens << " without";
  std::cout << "prompt tokens " << with_tokens << " with the image, " << without_tokens
            << " without; loaded model and projector in " << Seconds(loaded - start)
            << " s, answered the image in " << Seconds(answered - loaded) << " s\n";
  process->Terminate();
}

// The engine refuses a projector whose width is not the model's, and zest's
// reader (models/projector_info.h) finds the same two numbers.
TEST(RealEngine, AProjectorOfAnotherWidthIsRefusedAsZestsReaderPredicts) {
  TempDir dir;
  const VisionPair pair = WriteVisionPair(dir.path(), 128);
  auto projector = models::ReadGguf(pair.projector);
  ASSERT_TRUE(projector.ok()) << projector.status().ToString();
  auto info = models::DescribeProjector(*projector);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_FALSE(models::CheckProjectorFits(*info, 64).ok());

  auto lines = RunToEnd(RealEngine().Command({"llama-server", "-m", pair.model.string(), "--mmproj",
                                              pair.projector.string(), "--host",
                                              (dir.path() / "engine.sock").string()},
                                             {{dir.path()}, {}, {}}),
                        {}, /*expect_success=*/false);
  EXPECT_TRUE(Contains(lines, "mismatch between text model (n_embd = 64) and mmproj (n_embd = " +
                                  std::to_string(info->embedding_length) + ")"))
      << ::testing::PrintToString(lines);
}

// zest-make-model --arch outetts's backbone in the real llama-server: from an
// OuteTTS prompt it writes audio codes only (tokens kOuteTtsFirstCodeToken +
// code, code < 4096), as many as asked for.
TEST(RealEngine, OuteTtsBackboneWritesOnlyAudioCodes) {
  TempDir dir;
  const auto backbone = dir.path() / "voice.gguf";
  ASSERT_TRUE(tools::WriteOuteTtsModel({}, backbone).ok());
  const auto socket_path = dir.path() / "engine.sock";
  auto process = StartServer(RealEngine(), {"llama-server", "-m", backbone.string(), "-c", "512"},
                             dir.path(), socket_path);
  ASSERT_TRUE(process);
  const nlohmann::json request = {
      {"prompt",
       "<|im_start|>\n<|text_start|>hello<|text_sep|>world<|text_end|>\n<|audio_start|>\n"},
      {"n_predict", 20},
      {"top_k", 4},
      {"samplers", {"top_k"}},
      {"return_tokens", true}};
  const auto [status, body] = PostJson(socket_path, "/completion", request);
  ASSERT_EQ(status, 200) << body.dump();
  const std::vector<int> tokens = body["tokens"].get<std::vector<int>>();
  EXPECT_EQ(tokens.size(), 20u);
  for (int token : tokens) {
    EXPECT_GE(token, static_cast<int>(tools::kOuteTtsFirstCodeToken));
    EXPECT_LT(token, static_cast<int>(tools::kOuteTtsFirstCodeToken + tools::kOuteTtsCodebookSize));
  }
  process->Terminate();
}

// Its WavTokenizer vocoder in the real llama-server (libllama's
// wavtokenizer-dec): one 1282-wide spectrum (641 log-magnitudes, 641
// phases) per code, which is what an iSTFT turns into 320 samples.
TEST(RealEngine, OuteTtsVocoderGivesASpectrumPerCode) {
  TempDir dir;
  const auto backbone = dir.path() / "voice.gguf";
  ASSERT_TRUE(tools::WriteOuteTtsModel({}, backbone).ok());
  const auto socket_path = dir.path() / "engine.sock";
  auto process = StartServer(RealEngine(),
                             {"llama-server", "-m", tools::OuteTtsVocoderPath(backbone).string(),
                              "--embeddings", "-c", "512", "-b", "512", "-ub", "512"},
                             dir.path(), socket_path);
  ASSERT_TRUE(process);
  const nlohmann::json codes = {0, 1, 2, 3, 4000, 4095, 7, 8, 9, 10};
  const auto [status, body] =
      PostJson(socket_path, "/embedding", {{"content", codes}, {"embd_normalize", -1}});
  ASSERT_EQ(status, 200) << body.dump();
  const auto& rows = body[0]["embedding"];
  ASSERT_EQ(rows.size(), codes.size());
  for (const auto& row : rows) EXPECT_EQ(row.size(), tools::kOuteTtsVocoderOutput);
  process->Terminate();
}

}  // namespace
}  // namespace zest::engines
