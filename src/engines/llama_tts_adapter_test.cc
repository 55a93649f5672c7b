// LlamaTtsAdapter's command lines (the server in its outer sandbox,
// llama-tts in the engine sandbox inside, each run's arguments) and its
// reading of the server's answers.
#include "engines/llama_tts_adapter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engines/tts_server.h"

namespace zest::engines {
namespace {

LaunchSpec Spec() {
  LaunchSpec spec;
  spec.model_name = "talker";
  spec.model_file = "/models/talker.gguf";
  spec.vocoder = "/models/talker.vocoder.gguf";
  spec.model_files = {spec.model_file, spec.vocoder};
  spec.socket = "/run/zest/engines/talker-1/engine.sock";
  spec.threads = 6;
  return spec;
}

// `binary` in the engine rootfs, run by bwrap.
EngineLocation RootfsEngine(const char* binary) {
  EngineLocation location;
  location.source = EngineSource::kRootfs;
  location.rootfs = "/var/cache/zest/engines/debian-sid";
  location.binary = binary;
  location.bwrap = "/usr/bin/bwrap";
  return location;
}

template <typename T>
long Index(const std::vector<std::string>& argv, const T& value) {
  auto it = std::find(argv.begin(), argv.end(), value);
  return it == argv.end() ? -1 : it - argv.begin();
}

TEST(LlamaTtsAdapterTest, LlamaTtsGetsTheBackboneTheVocoderAndTheThreadBudget) {
  EXPECT_EQ(LlamaTtsArgs(Spec()),
            (std::vector<std::string>{"llama-tts", "-m", "/models/talker.gguf", "-mm",
                                      "/models/talker.vocoder.gguf", "-t", "6"}));
  LaunchSpec no_threads = Spec();
  no_threads.threads = 0;
  EXPECT_EQ(Index(LlamaTtsArgs(no_threads), "-t"), -1);
}

TEST(LlamaTtsAdapterTest, TheServerRunsInTheOuterSandboxAndLlamaTtsInTheEngineSandbox) {
  LlamaTtsSetup setup;
  setup.located = RootfsEngine("/usr/bin/llama-tts");
  setup.self_exe = "/opt/zest/bin/zest";
  LlamaTtsAdapter adapter(std::move(setup));
  Result<LaunchCommand> command = adapter.Command(Spec());
  ASSERT_TRUE(command.ok()) << command.status().message();
  const std::vector<std::string>& argv = command->argv;
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");  // the outer sandbox
  const long server = Index(argv, "tts-engine");
  ASSERT_GT(server, 0);
  EXPECT_EQ(argv[server - 1], "/opt/zest/bin/zest");
  EXPECT_EQ(argv[server + 2], "/run/zest/engines/talker-1/engine.sock");
  EXPECT_EQ(argv[server + 4], "/run/zest/engines/talker-1/runs");  // the work directory
  EXPECT_EQ(argv[server + 5], "--");
  // The inner bwrap, then llama-tts with the vocoder and the writable work dir.
  const std::vector<std::string> inner(argv.begin() + server + 6, argv.end());
  EXPECT_EQ(inner.front(), "/usr/bin/bwrap");
  EXPECT_GE(Index(inner, "/models/talker.vocoder.gguf"), 0);
  EXPECT_GE(Index(inner, "-mm"), 0);
  // Only runs/ is writable to llama-tts: the socket directory, with the
  // tts-engine's own socket, is not mounted into its sandbox at all.
  EXPECT_GE(Index(inner, "/run/zest/engines/talker-1/runs"), 0);
  EXPECT_EQ(Index(inner, "/run/zest/engines/talker-1"), -1);
  EXPECT_EQ(Index(inner, "/run/zest/engines/talker-1/engine.sock"), -1);
}

TEST(LlamaTtsAdapterTest, WithoutAVocoderOrTheEngineThereIsNoCommand) {
  LlamaTtsAdapter missing{LlamaTtsSetup{}};
  EXPECT_FALSE(missing.Command(Spec()).ok());
  EXPECT_FALSE(missing.Available().ok());
}

TEST(LlamaTtsAdapterTest, EachRunCapsAudioTokensInProportionToTheText) {
  LlamaTtsAdapter adapter{LlamaTtsSetup{}};
  SpeechJob job;
  job.text = "héllo";  // five characters, six bytes
  job.timeout_s = 30;
  Result<EngineCall> call = adapter.SpeechCall(job);
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->path, "/speech");
  nlohmann::json body = nlohmann::json::parse(call->body);
  EXPECT_EQ(body["n_predict"], SpeechTokenCap(5));
  EXPECT_EQ(body["timeout_s"], 30);
  EXPECT_LT(SpeechTokenCap(10), SpeechTokenCap(100));
  // 120 characters said in 10 s: 750 WavTokenizer codes and about a token a
  // character of OuteTTS's words, durations and code markers.
  EXPECT_GE(SpeechTokenCap(120), 750 + 120);
  EXPECT_EQ(TtsRunArgs({"bwrap", "llama-tts"}, "hi", "/w/tts-1/speech.wav", 85),
            (std::vector<std::string>{"bwrap", "llama-tts", "-p", "hi", "-o", "/w/tts-1/speech.wav",
                                      "-n", "85"}));
}

TEST(LlamaTtsAdapterTest, TheServersErrorsBecomeStatuses) {
  LlamaTtsAdapter adapter{LlamaTtsSetup{}};
  EXPECT_EQ(adapter.ReadSpeech(400, R"({"error":{"message":"no input"}})").status().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(
      adapter.ReadSpeech(503, R"({"error":{"message":"killed by signal 9"}})").status().code(),
      ErrorCode::kUnavailable);
  EXPECT_EQ(adapter.ReadSpeech(504, "{}").status().code(), ErrorCode::kTimeout);
  EXPECT_EQ(adapter.ReadSpeech(500, "boom").status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(adapter.ReadSpeech(200, "not a wav").status().code(), ErrorCode::kEngineFailed);
  // What the engine printed is for zest's log only, never the client.
  const Status failed =
      adapter
          .ReadSpeech(
              500,
              R"({"error":{"message":"llama-tts exited with code 1","detail":"/secret/x.gguf"}})")
          .status();
  EXPECT_EQ(failed.message(),
            "the speech engine failed: llama-tts exited with code 1 (zest's log has the engine's "
            "output)");
  const Status raw = adapter.ReadSpeech(502, "upstream said /secret/y").status();
  EXPECT_EQ(raw.message().find("/secret"), std::string::npos) << raw.message();
}

TEST(LlamaTtsAdapterTest, AWavTokenizerVocoderRunsOnTwoLlamaServersInTheEngineSandbox) {
  LlamaTtsSetup setup;
  setup.llama_server = RootfsEngine("/usr/bin/llama-server");  // no llama-tts at all
  setup.self_exe = "/opt/zest/bin/zest";
  setup.vocoder_architecture = [](const std::filesystem::path&) { return "wavtokenizer-dec"; };
  LlamaTtsAdapter adapter(std::move(setup));
  EXPECT_TRUE(adapter.Available().ok());
  LaunchSpec spec = Spec();
  spec.ctx_per_slot = 4096;
  Result<LaunchCommand> command = adapter.Command(spec);
  ASSERT_TRUE(command.ok()) << command.status().message();
  const std::vector<std::string>& argv = command->argv;
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");
  const long server = Index(argv, "tts-engine");
  ASSERT_GT(server, 0);
  const long json = Index(argv, "--outetts");
  ASSERT_GT(json, server);
  Result<OuteTtsServers> servers = ParseOuteTtsServers(argv[json + 1]);
  ASSERT_TRUE(servers.ok()) << servers.status().message();
  EXPECT_EQ(servers->backbone.socket, "/run/zest/engines/talker-1/runs/backbone.sock");
  EXPECT_EQ(servers->vocoder.socket, "/run/zest/engines/talker-1/runs/vocoder.sock");
  EXPECT_EQ(servers->vocoder_batch, kOuteTtsVocoderBatch);
  EXPECT_EQ(servers->context, 4096);  // the backbone's -c, for OuteTtsTooLong
  for (const auto* child : {&servers->backbone.argv, &servers->vocoder.argv}) {
    EXPECT_EQ(child->front(), "/usr/bin/bwrap");  // each in the engine sandbox
    EXPECT_GT(Index(*child, "/run/zest/engines/talker-1/runs"), 0);
    EXPECT_EQ(Index(*child, "/run/zest/engines/talker-1"), -1);
  }
  const std::vector<std::string>& vocoder = servers->vocoder.argv;
  EXPECT_GT(Index(vocoder, "--embeddings"), 0);
  EXPECT_EQ(vocoder[Index(vocoder, "-ub") + 1], "4096");
  EXPECT_EQ(vocoder[Index(vocoder, "-m") + 1], "/models/talker.vocoder.gguf");
  const std::vector<std::string>& backbone = servers->backbone.argv;
  EXPECT_EQ(backbone[Index(backbone, "-m") + 1], "/models/talker.gguf");
  EXPECT_EQ(backbone[Index(backbone, "-c") + 1], "4096");
  EXPECT_EQ(backbone[Index(backbone, "-t") + 1], "6");
  EXPECT_EQ(Index(backbone, "--embeddings"), -1);
}

TEST(LlamaTtsAdapterTest, TheVocodersLlamaServerIsPinnedToTheCpuWhereverTheBackboneGoes) {
  LaunchSpec spec = Spec();
  EnginePlacement gpu;
  gpu.devices = {"CUDA0", "CUDA1"};
  gpu.gpu_layers = 99;
  gpu.tensor_split = {1, 1};
  gpu.cache_type_k = "q8_0";
  spec.placement = gpu;
  const std::vector<std::string> backbone = OuteTtsBackboneArgs(spec, "/w/backbone.sock");
  EXPECT_EQ(backbone[Index(backbone, "--device") + 1], "CUDA0,CUDA1");
  // Placement charges the vocoder to host memory: llama-server must neither
  // fit it onto a GPU itself nor follow the backbone there.
  for (const std::optional<EnginePlacement>& placement :
       {std::optional(gpu), std::optional<EnginePlacement>()}) {
    spec.placement = placement;
    const std::vector<std::string> vocoder = OuteTtsVocoderArgs(spec, "/w/vocoder.sock");
    ASSERT_GT(Index(vocoder, "--fit"), 0);
    EXPECT_EQ(vocoder[Index(vocoder, "--fit") + 1], "off");
    EXPECT_EQ(vocoder[Index(vocoder, "--device") + 1], "none");
    EXPECT_EQ(vocoder[Index(vocoder, "-ngl") + 1], "0");
    EXPECT_EQ(Index(vocoder, "--tensor-split"), -1);
    EXPECT_EQ(vocoder[Index(vocoder, "-b") + 1], "4096");
    EXPECT_EQ(vocoder[Index(vocoder, "-ub") + 1], "4096");
    EXPECT_EQ(std::count(vocoder.begin(), vocoder.end(), "-ub"), 1);
  }
  spec.placement = gpu;
  const std::vector<std::string> vocoder = OuteTtsVocoderArgs(spec, "/w/vocoder.sock");
  EXPECT_EQ(vocoder[Index(vocoder, "-ctk") + 1], "q8_0");  // the model's other settings carry over
}

TEST(LlamaTtsAdapterTest, OtherVocodersStayWithLlamaTts) {
  LlamaTtsSetup setup;
  setup.vocoder_architecture = [](const std::filesystem::path&) { return "clip"; };
  EngineLocation location;
  location.source = EngineSource::kSystem;
  location.binary = "/usr/bin/llama-server";
  setup.llama_server = location;
  LlamaTtsAdapter adapter(std::move(setup));
  EXPECT_EQ(adapter.Command(Spec()).status().code(), ErrorCode::kUnavailable);  // no llama-tts
}

TEST(OuteTtsServersJson, RoundTrips) {
  OuteTtsServers s;
  s.backbone = {{"a", "b c"}, "/x/b.sock"};
  s.vocoder = {{"d"}, "/x/v.sock"};
  s.vocoder_batch = 77;
  s.context = 8192;
  Result<OuteTtsServers> back = ParseOuteTtsServers(OuteTtsServersJson(s));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->backbone.argv, s.backbone.argv);
  EXPECT_EQ(back->vocoder.socket, s.vocoder.socket);
  EXPECT_EQ(back->vocoder_batch, 77);
  EXPECT_EQ(back->context, 8192);
  EXPECT_FALSE(ParseOuteTtsServers("{}").ok());
  EXPECT_FALSE(ParseOuteTtsServers("nope").ok());
}

}  // namespace
}  // namespace zest::engines
