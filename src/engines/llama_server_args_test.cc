#include "engines/llama_server_args.h"

#include <gtest/gtest.h>

namespace zest::engines {
namespace {

TEST(LlamaServerArgs, MinimalCommandLine) {
  LlamaServerOptions options;
  options.model = "/models/tiny.gguf";
  options.alias = "tiny";
  options.socket = "/run/zest/tiny.sock";
  EXPECT_EQ(LlamaServerArgs(options),
            (std::vector<std::string>{"llama-server", "--host", "/run/zest/tiny.sock", "--alias",
                                      "tiny", "-m", "/models/tiny.gguf", "--metrics", "--jinja",
                                      "--parallel", "1"}));
}

TEST(LlamaServerArgs, AllOptionsInOrder) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.alias = "m";
  options.socket = "/s.sock";
  options.ctx_size = 4096;
  options.parallel = 4;
  options.threads = 2;
  options.embeddings = true;
  options.mmproj = "/mmproj.gguf";
  options.extra = {"-ngl", "99"};
  EXPECT_EQ(LlamaServerArgs(options), (std::vector<std::string>{"llama-server",
                                                                "--host",
                                                                "/s.sock",
                                                                "--alias",
                                                                "m",
                                                                "-m",
                                                                "/m.gguf",
                                                                "--metrics",
                                                                "--jinja",
                                                                "--parallel",
                                                                "4",
                                                                "-c",
                                                                "4096",
                                                                "-t",
                                                                "2",
                                                                "--mmproj",
                                                                "/mmproj.gguf",
                                                                "--embeddings",
                                                                "-ngl",
                                                                "99"}));
}

TEST(LlamaServerArgs, AProjectorTheGpuHasNoRoomForStaysOnTheCpu) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.socket = "/s.sock";
  options.mmproj = "/mmproj.gguf";
  options.placement = EnginePlacement();
  options.placement->devices = {"Vulkan0"};
  options.placement->gpu_layers = 17;
  auto has = [](const std::vector<std::string>& argv, const char* flag) {
    return std::find(argv.begin(), argv.end(), flag) != argv.end();
  };
  EXPECT_FALSE(has(LlamaServerArgs(options), "--no-mmproj-offload"));
  options.placement->mmproj_on_cpu = true;
  EXPECT_TRUE(has(LlamaServerArgs(options), "--no-mmproj-offload"));
  options.mmproj.clear();  // no projector: nothing to keep anywhere
  EXPECT_FALSE(has(LlamaServerArgs(options), "--no-mmproj-offload"));
}

TEST(LlamaServerArgs, ARerankerRunsWithRerankingNotEmbeddings) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.socket = "/s.sock";
  options.embeddings = true;
  options.reranking = true;
  auto argv = LlamaServerArgs(options);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--reranking"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--embeddings"), argv.end());
}

TEST(LlamaServerArgs, EmptyAliasIsLeftOut) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.socket = "/s.sock";
  auto argv = LlamaServerArgs(options);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--alias"), argv.end());
}

TEST(LlamaServerArgs, PlacementOnTwoGpus) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.socket = "/s.sock";
  EnginePlacement p;
  p.devices = {"Vulkan0", "Vulkan1"};
  p.gpu_layers = 33;
  p.tensor_split = {24560, 8192};
  p.n_cpu_moe = 4;
  p.cache_type_k = "q8_0";
  p.cache_type_v = "q4_0";
  p.flash_attention = true;
  p.no_mmap = true;
  p.batch = 1024;
  p.ubatch = 256;
  p.cache_ram_mib = 512;
  options.placement = p;
  options.extra = {"--temp", "0.5"};
  auto argv = LlamaServerArgs(options);
  const std::vector<std::string> tail(argv.begin() + 9, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--fit",
                                            "off",
                                            "--device",
                                            "Vulkan0,Vulkan1",
                                            "-ngl",
                                            "33",
                                            "--tensor-split",
                                            "24560,8192",
                                            "--n-cpu-moe",
                                            "4",
                                            "-ctk",
                                            "q8_0",
                                            "-ctv",
                                            "q4_0",
                                            "-fa",
                                            "on",
                                            "--load-mode",
                                            "none",
                                            "-b",
                                            "1024",
                                            "-ub",
                                            "256",
                                            "--cache-ram",
                                            "512",
                                            "--temp",
                                            "0.5"}));
}

TEST(LlamaServerArgs, CpuOnlyPlacementHidesGpus) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.socket = "/s.sock";
  EnginePlacement p;
  p.gpu_layers = 33;  // ignored without devices
  p.mlock = true;
  options.placement = p;
  auto argv = LlamaServerArgs(options);
  const std::vector<std::string> tail(argv.begin() + 9, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--fit", "off", "--device", "none", "-ngl", "0", "-ctk",
                                            "f16", "-ctv", "f16", "--load-mode", "mmap+mlock",
                                            "-ub", "512"}));
}

}  // namespace
}  // namespace zest::engines
