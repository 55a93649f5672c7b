#include "placement/reserved_args.h"

#include <gtest/gtest.h>

namespace zest::placement {
namespace {

TEST(ReservedArgs, FlagsZestOwnsAreRefusedByName) {
  struct Case {
    std::vector<std::string> args;
    std::string named;  // the flag the error must name
    std::string why;    // part of the reason
  };
  const std::vector<Case> cases = {
      {{"--host", "0.0.0.0"}, "--host", "socket"},
      {{"--port=8080"}, "--port", "socket"},
      {{"--temp", "0.7", "--api-key", "x"}, "--api-key", "authentication"},
      {{"--api-key-file", "/k"}, "--api-key-file", "authentication"},
      {{"--api-key-anything"}, "--api-key-anything", "authentication"},
      {{"--ssl-key-file", "k.pem"}, "--ssl-key-file", "TLS"},
      {{"--slot-save-path", "/tmp"}, "--slot-save-path", "write files"},
      {{"--log-file", "/tmp/x.log"}, "--log-file", "engine logs"},
      {{"--metrics"}, "--metrics", "zest"},
      {{"--path", "/"}, "--path", "static files"},
      {{"--model", "/etc/passwd"}, "--model", "model file"},
      {{"-hf", "org/repo"}, "-hf", "zest pull"},
      {{"--hf-repo", "org/repo"}, "--hf-repo", "zest pull"},
      {{"--model-url", "http://x"}, "--model-url", "zest pull"},
      {{"--api-prefix", "/x"}, "--api-prefix", "routes"},
      {{"--props"}, "--props", "settings"},
      {{"-ngl", "99"}, "-ngl", "n_gpu_layers"},
      {{"--override-tensor", "exps=CPU"}, "--override-tensor", "places"},
      {{"--sleep-idle-seconds", "5"}, "--sleep-idle-seconds", "keep_alive"},
      {{"-v"}, "-v", "-lv 4"},
      {{"--verbose"}, "--verbose", "prompt and reply"},
  };
  for (const Case& c : cases) {
    Status st = ValidateExtraArgs(c.args);
    ASSERT_FALSE(st.ok()) << c.named;
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(st.message().find("'" + c.named + "' is reserved"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(c.why), std::string::npos) << st.message();
  }
}

TEST(ReservedArgs, SamplingAndOtherEngineOptionsPass) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"--temp", "0.7", "--top-k", "40"},
           {"--jinja", "--chat-template-file", "t.jinja"},
           {"--rope-scaling", "yarn", "--no-warmup"},
           {"-lv", "4"},  // the load details, without -v's prompt logging
           {"--hostile-but-unknown"},  // not a prefix match on --host: llama-server refuses it itself
       }) {
    EXPECT_TRUE(ValidateExtraArgs(args).ok()) << (args.empty() ? "" : args.front());
  }
}

}  // namespace
}  // namespace zest::placement
