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
  EXPECT_EQ(LlamaServerArgs(options),
            (std::vector<std::string>{"llama-server", "--host", "/s.sock", "--alias", "m", "-m",
                                      "/m.gguf", "--metrics", "--jinja", "--parallel", "4", "-c",
                                      "4096", "-t", "2", "--mmproj", "/mmproj.gguf",
                                      "--embeddings", "-ngl", "99"}));
}

TEST(LlamaServerArgs, EmptyAliasIsLeftOut) {
  LlamaServerOptions options;
  options.model = "/m.gguf";
  options.socket = "/s.sock";
  auto argv = LlamaServerArgs(options);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--alias"), argv.end());
}

}  // namespace
}  // namespace zest::engines
