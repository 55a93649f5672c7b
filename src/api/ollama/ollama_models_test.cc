#include "api/ollama/ollama_models.h"

#include <gtest/gtest.h>

namespace zest::api::ollama {
namespace {

using nlohmann::json;

models::ModelEntry Model(const std::string& name) {
  models::ModelEntry m;
  m.name = name;
  m.path = "/models/" + name + ".gguf";
  m.created = 1'796'400'000;  // 2026-12-04T...
  m.info.architecture = "qwen3";
  m.info.parameter_count = 596'049'920;
  m.info.file_type = "Q8_0";
  m.info.file_size = 639'446'688;
  return m;
}

TEST(OllamaModelsTest, NamesGetAndLoseLatest) {
  EXPECT_EQ(OllamaName("qwen3-8b"), "qwen3-8b:latest");
  EXPECT_EQ(OllamaName("unsloth/Qwen3-0.6B-GGUF:Q8_0"), "unsloth/Qwen3-0.6B-GGUF:Q8_0");
  EXPECT_EQ(OllamaName("org/repo/sub:dir/file"), "org/repo/sub:dir/file:latest");
  EXPECT_EQ(ZestName("qwen3-8b:latest"), "qwen3-8b");
  EXPECT_EQ(ZestName("qwen3-8b"), "qwen3-8b");
  EXPECT_EQ(ZestName("org/repo:Q4_K_M"), "org/repo:Q4_K_M");
}

TEST(OllamaModelsTest, SizesAndTimesInOllamasWords) {
  EXPECT_EQ(ParameterSize(596'049'920), "596.0M");
  EXPECT_EQ(ParameterSize(4'300'000'000), "4.3B");
  EXPECT_EQ(ParameterSize(1234), "1234");
  EXPECT_EQ(Rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Rfc3339(1'796'400'000), "2026-12-04T16:00:00Z");
}

TEST(OllamaModelsTest, TagsEntryHasTheFieldsClientsRead) {
  const json tags = TagsEntry(Model("tiny"));
  EXPECT_EQ(tags["name"], "tiny:latest");
  EXPECT_EQ(tags["model"], "tiny:latest");
  EXPECT_EQ(tags["size"], 639'446'688u);
  EXPECT_EQ(tags["digest"].get<std::string>().size(), 64u);
  EXPECT_EQ(tags["details"], (json{{"parent_model", ""},
                                   {"format", "gguf"},
                                   {"family", "qwen3"},
                                   {"families", {"qwen3"}},
                                   {"parameter_size", "596.0M"},
                                   {"quantization_level", "Q8_0"}}));
  models::ModelEntry changed = Model("tiny");
  changed.created += 1;
  EXPECT_NE(Digest(changed), Digest(Model("tiny"))) << "a new file is a new digest";
  models::ModelEntry ears = Model("ears");
  ears.info.speech = true;
  EXPECT_EQ(TagsEntry(ears)["details"]["format"], "ggml");
}

TEST(OllamaModelsTest, PsSaysWhatIsOnTheGpu) {
  scheduler::InstanceStatus s;
  s.plan.ctx_per_slot = 4096;
  placement::DeviceMemory cpu;
  cpu.weights = 100;
  placement::DeviceMemory gpu;
  gpu.weights = 900;
  s.plan.memory = {{"CPU", cpu}, {"Vulkan0", gpu}};
  const json ps = PsEntry(Model("tiny"), s, 1'796'400'000);
  EXPECT_EQ(ps["size"], s.plan.TotalBytes());
  EXPECT_EQ(ps["size_vram"], gpu.Total());
  EXPECT_EQ(ps["context_length"], 4096u);
  EXPECT_EQ(ps["expires_at"], "2026-12-04T16:00:00Z");
  EXPECT_TRUE(PsEntry(Model("tiny"), s, std::nullopt)["expires_at"].is_null());
}

TEST(OllamaModelsTest, ShowTakesTheTemplateOutAndSaysWhatTheModelCanDo) {
  models::ModelEntry m = Model("tiny");
  m.mmproj = "/models/mmproj.gguf";
  m.projector.has_vision = true;
  m.info.template_tools = true;  // as the registry reads them from the template
  m.info.template_thinking = true;
  const json metadata = {{"general.architecture", "qwen3"},
                         {"tokenizer.chat_template", "{% if tools %}...<think>{% endif %}"}};
  const json show = ShowJson(m, metadata);
  EXPECT_EQ(show["template"], "{% if tools %}...<think>{% endif %}");
  EXPECT_FALSE(show["model_info"].contains("tokenizer.chat_template"));
  EXPECT_EQ(show["model_info"]["general.architecture"], "qwen3");
  EXPECT_EQ(show["capabilities"], (json{"completion", "vision", "tools", "thinking"}));
  models::ModelEntry embedder = Model("e");
  embedder.info.embedding = true;
  EXPECT_EQ(ShowJson(embedder, json::object())["capabilities"], json{"embedding"});
}

}  // namespace
}  // namespace zest::api::ollama
