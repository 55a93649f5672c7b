// The sd-server adapter's command and description, and the recipes'
// verdicts for the TCP-only engines. No sd-server runs here (no package
// ships one); tests/integration covers the bridge with whisper-server.
#include "engines/sd_server_adapter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engines/engine_set.h"
#include "engines/flm_adapter.h"
#include "engines/llama_server_adapter.h"
#include "engines/recipe_verdicts.h"
#include "engines/whisper_adapter.h"

namespace zest::engines {
namespace {

LaunchSpec Spec() {
  LaunchSpec spec;
  spec.model_name = "pics";
  spec.model_file = "/models/sd-v1-5.safetensors";
  spec.model_files = {spec.model_file};
  spec.socket = "/run/zest/pics-1/engine.sock";
  spec.threads = 2;
  return spec;
}

EngineLocation Configured(std::filesystem::path bwrap) {
  EngineLocation located;
  located.source = EngineSource::kConfigured;
  located.binary = "/opt/sd/sd-server";
  located.bwrap = std::move(bwrap);
  return located;
}

// The position of `value` in `argv` after `from`; argv.size() when absent.
std::size_t Find(const std::vector<std::string>& argv, const std::string& value,
                 std::size_t from = 0) {
  auto it = std::find(argv.begin() + static_cast<std::ptrdiff_t>(from), argv.end(), value);
  return static_cast<std::size_t>(it - argv.begin());
}

TEST(SdServerAdapter, RunsBehindTheBridgeOnItsOwnNetwork) {
  SdServerAdapter adapter({Configured("/usr/bin/bwrap"), "/usr/bin/zest"});
  auto command = adapter.Command(Spec());
  ASSERT_TRUE(command.ok()) << command.status().message();
  const std::vector<std::string>& argv = command->argv;
  EXPECT_EQ(argv.front(), "/usr/bin/bwrap");
  const std::size_t net = Find(argv, "--unshare-net");
  const std::size_t bridge = Find(argv, "engine-bridge");
  ASSERT_LT(net, bridge);
  EXPECT_EQ(argv[bridge - 1], "/usr/bin/zest");
  EXPECT_EQ(argv[Find(argv, "--port", bridge) + 1], "8179");
  EXPECT_EQ(argv[Find(argv, "--socket", bridge) + 1], "/run/zest/pics-1/engine.sock");
  // Inside: sd-server on the same port, on loopback, with the model.
  const std::size_t engine = Find(argv, "/opt/sd/sd-server", bridge);
  ASSERT_LT(engine, argv.size());
  EXPECT_EQ(argv[Find(argv, "--listen-ip", engine) + 1], "127.0.0.1");
  EXPECT_EQ(argv[Find(argv, "--listen-port", engine) + 1], "8179");
  EXPECT_EQ(argv[Find(argv, "-m", engine) + 1], "/models/sd-v1-5.safetensors");
  EXPECT_EQ(argv[Find(argv, "-t", engine) + 1], "2");
}

// Always PNG: zest makes jpeg and webp itself (image_converter.h).
TEST(SdServerAdapter, AsksForPngImagesInItsOpenAiShape) {
  SdServerAdapter adapter({});
  ImageJob job;
  job.prompt = "a lighthouse";
  job.n = 2;
  job.width = 512;
  job.height = 768;
  Result<EngineCall> call = adapter.ImageCall(job);
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->path, "/v1/images/generations");
  EXPECT_EQ(
      nlohmann::json::parse(call->body),
      (nlohmann::json{
          {"prompt", "a lighthouse"}, {"n", 2}, {"size", "512x768"}, {"output_format", "png"}}));
  job.width = job.height = 0;  // the model's default size
  EXPECT_FALSE(nlohmann::json::parse(adapter.ImageCall(job)->body).contains("size"));
}

TEST(SdServerAdapter, ReadsItsImagesAndItsErrors) {
  SdServerAdapter adapter({});
  Result<GeneratedImages> images = adapter.ReadImages(
      200,
      R"({"created":1,"output_format":"png","data":[{"b64_json":"iVBO"},{"b64_json":"AAAA"}]})");
  ASSERT_TRUE(images.ok()) << images.status().message();
  EXPECT_EQ(images->output_format, "png");
  EXPECT_EQ(images->b64, (std::vector<std::string>{"iVBO", "AAAA"}));

  Result<GeneratedImages> refused = adapter.ReadImages(400, R"({"error":"invalid params"})");
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("invalid params"), std::string::npos);
  EXPECT_EQ(adapter.ReadImages(500, R"({"error":"server_error","message":"oom"})").status().code(),
            ErrorCode::kEngineFailed);
  EXPECT_EQ(adapter.ReadImages(200, R"({"data":[]})").status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(adapter.ReadImages(200, "not json").status().code(), ErrorCode::kEngineFailed);
  // Odd types are absent, not thrown on.
  EXPECT_EQ(adapter.ReadImages(500, R"({"error":7,"message":[1]})").status().code(),
            ErrorCode::kEngineFailed);
  EXPECT_EQ(
      adapter.ReadImages(200, R"({"output_format":1,"data":[{"b64_json":"AA"}]})")->output_format,
      "png");
}

TEST(SdServerAdapter, NeedsBubblewrapAndSaysHowToInstallIt) {
  SdServerAdapter unsandboxed({Configured(""), "/usr/bin/zest"});
  auto command = unsandboxed.Command(Spec());
  EXPECT_EQ(command.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(command.status().message().find("bubblewrap"), std::string::npos);

  SdServerAdapter missing({});
  EXPECT_NE(missing.Available().message().find("engine.sd_server"), std::string::npos);
  EngineDescription d = missing.Describe(nullptr);
  EXPECT_EQ(d.name, "sd-server");
  EXPECT_FALSE(d.available.ok());
  EXPECT_EQ(d.serves, std::vector<std::string>{"images"});
  EXPECT_EQ(missing.PathFor(Capability::kImages), "/v1/images/generations");
  EXPECT_EQ(missing.PathFor(Capability::kChat), std::nullopt);
}

std::map<std::string, RecipeVerdict> ByRecipe(const std::vector<RecipeVerdict>& verdicts) {
  std::map<std::string, RecipeVerdict> out;
  for (const auto& v : verdicts) out[v.recipe + "-" + v.backend] = v;
  return out;
}

TEST(SdServerAdapter, RecipesSayWhetherTheTcpEnginesAreInstalled) {
  hardware::Inventory inv;
  inv.cpu.threads = 2;
  EngineFacts none;
  auto missing = ByRecipe(RecipeVerdicts(inv, none));
  EXPECT_EQ(missing["sdcpp-cpu"].verdict, Verdict::kInstallable);
  EXPECT_NE(missing["sdcpp-cpu"].reason.find("engine.sd_server"), std::string::npos);
  EXPECT_EQ(missing["whispercpp-cpu"].verdict, Verdict::kInstallable);

  EngineFacts both;
  both.sd_server_found = true;
  both.sd_server_source = "configured";
  both.whisper_server_found = true;
  both.whisper_server_source = "rootfs";
  auto found = ByRecipe(RecipeVerdicts(inv, both));
  EXPECT_EQ(found["sdcpp-cpu"].verdict, Verdict::kUsable);
  EXPECT_EQ(found["sdcpp-cpu"].reason, "sd-server (configured) on 2 threads");
  EXPECT_EQ(found["whispercpp-cpu"].reason, "whisper-server (rootfs) on 2 threads");
}

TEST(EngineSetTest, EachKindOfModelGetsItsEngine) {
  EngineSet set(std::make_unique<LlamaServerAdapter>(NotFound("none")),
                std::make_unique<FlmAdapter>(FlmSetup{}),
                std::make_unique<WhisperAdapter>(WhisperSetup{}),
                std::make_unique<SdServerAdapter>(SdServerSetup{}));
  auto name = [&](EngineChoice choice) { return std::string((*set.For(choice))->name()); };
  EXPECT_EQ(name({}), "llama-server");
  EXPECT_EQ(name({.on_npu = true}), "flm");
  EXPECT_EQ(name({.speech = true}), "whisper-server");
  EXPECT_EQ(name({.images = true}), "sd-server");
  EXPECT_EQ(set.Named("sd-server"), set.images());
  EXPECT_EQ(set.All().size(), 4u);

  EngineSet language_only(std::make_unique<LlamaServerAdapter>(NotFound("none")), nullptr, nullptr);
  EXPECT_EQ(language_only.For({.images = true}).status().code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace zest::engines
