#include "api/engine_scrape.h"

#include <gtest/gtest.h>

#include "engines/llama_server_adapter.h"

namespace zest::api {
namespace {

constexpr const char* kEngine =
    R"(# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 26
# HELP llamacpp:n_tokens_max Largest observed sequence length
# TYPE llamacpp:n_tokens_max counter
llamacpp:n_tokens_max 28
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred{slot="0"} 2
garbage line
llamacpp:requests_processing
)";

// llama-server's adapter says which families are re-exported, and how.
const engines::LlamaServerAdapter kLlama(NotFound("not needed to read metrics"));
const engines::EngineAdapter* const kLlamaServer = &kLlama;

TEST(EngineScrapeTest, RenamesSelectedFamiliesAndLabelsThemByModel) {
  std::string text =
      ReexportEngineMetrics({{kLlamaServer, "a", kEngine, ""},
                             {kLlamaServer, "b\"q", "llamacpp:prompt_tokens_total 4\n", ""}});
  EXPECT_EQ(
      text,
      "# HELP zest_engine_prompt_tokens_total llama-server: Number of prompt tokens processed\n"
      "# TYPE zest_engine_prompt_tokens_total counter\n"
      "zest_engine_prompt_tokens_total{model=\"a\"} 26\n"
      "zest_engine_prompt_tokens_total{model=\"b\\\"q\"} 4\n"
      "# HELP zest_engine_requests_deferred llama-server: engine metric\n"
      "# TYPE zest_engine_requests_deferred gauge\n"
      "zest_engine_requests_deferred{model=\"a\",slot=\"0\"} 2\n");
}

TEST(EngineScrapeTest, AReplicaIsLabelledWithItsDevice) {
  std::string text =
      ReexportEngineMetrics({{kLlamaServer, "a", "llamacpp:prompt_tokens_total 26\n", ""},
                             {kLlamaServer, "a", "llamacpp:prompt_tokens_total 4\n", "Vulkan0"}});
  EXPECT_NE(text.find("zest_engine_prompt_tokens_total{model=\"a\"} 26\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("zest_engine_prompt_tokens_total{model=\"a\",device=\"Vulkan0\"} 4\n"),
            std::string::npos)
      << text;
}

TEST(EngineScrapeTest, NothingFromNoEngines) { EXPECT_EQ(ReexportEngineMetrics({}), ""); }

}  // namespace
}  // namespace zest::api
