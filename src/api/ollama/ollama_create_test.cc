#include "api/ollama/ollama_create.h"

#include <gtest/gtest.h>

#include "api/model_preset.h"
#include "engines/openai_request_json.h"

namespace zest::api::ollama {
namespace {

using nlohmann::json;

// The request fields a preset's parameters give a request that sets none
// (api/model_preset.h).
json Defaults(const models::ModelPreset& preset) {
  models::ModelEntry model;
  model.preset = preset;
  engines::ChatRequest request;
  request.kind = engines::Capability::kCompletions;
  ApplyPreset(model, request);
  const json body = engines::OpenAiRequestJson(request, {});
  json out = json::object();
  for (const auto& [key, value] : body.items()) {
    if (key != "prompt" && key != "model" && key != "stream") out[key] = value;
  }
  return out;
}

TEST(OllamaCreateTest, AModelfileFromAModelIsAPreset) {
  Result<CreateRequest> r = ParseCreateRequest(json::parse(R"({
      "model": "mario:latest", "from": "tiny:latest", "system": "You are Mario.",
      "parameters": {"temperature": 0.2, "num_predict": 3, "stop": ["a", "b"], "num_ctx": 4096},
      "messages": [{"role": "user", "content": "who?"}, {"role": "assistant", "content": "Mario!"}],
      "stream": false})"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "mario");
  EXPECT_FALSE(r->file.has_value());
  EXPECT_FALSE(r->stream);
  EXPECT_EQ(r->preset.from, "tiny");
  EXPECT_EQ(r->preset.system, "You are Mario.");
  EXPECT_EQ(r->preset.parameters["num_ctx"], 4096);  // kept for show; a load option
  EXPECT_EQ(Defaults(r->preset),
            (json{{"temperature", 0.2}, {"max_tokens", 3}, {"stop", json::array({"a", "b"})}}));
  ASSERT_EQ(r->preset.messages.size(), 2u);
  EXPECT_EQ(r->preset.messages[1], (json{{"role", "assistant"}, {"content", "Mario!"}}));
}

// A Modelfile's PARAMETER draft (speculative decoding's options): checked
// at create, and a preset with them keeps its own name when applied (the
// pool loads it on an engine of its own); one without runs as its base.
TEST(OllamaCreateTest, SpeculativeParametersAreCheckedAndKeepThePresetApart) {
  Result<CreateRequest> r = ParseCreateRequest(json::parse(R"({
      "model": "fast", "from": "tiny", "parameters": {"draft": "tiny-draft", "draft_max": 8}})"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  models::ModelEntry fast;
  fast.name = "fast";
  fast.preset = r->preset;
  engines::ChatRequest request;
  request.kind = engines::Capability::kChat;
  ApplyPreset(fast, request);
  EXPECT_EQ(fast.name, "fast");
  EXPECT_TRUE(fast.preset.has_value());

  Result<CreateRequest> plain = ParseCreateRequest(
      json::parse(R"({"model": "calm", "from": "tiny", "parameters": {"temperature": 0.1}})"));
  ASSERT_TRUE(plain.ok());
  models::ModelEntry calm;
  calm.name = "calm";
  calm.preset = plain->preset;
  ApplyPreset(calm, request);
  EXPECT_EQ(calm.name, "tiny");
  EXPECT_FALSE(calm.preset.has_value());

  for (const char* body :
       {R"({"model": "m", "from": "tiny", "parameters": {"draft_max": 0}})",
        R"({"model": "m", "from": "tiny", "parameters": {"draft": 7}})",
        R"({"model": "m", "from": "tiny", "parameters": {"speculative": "x"}})"}) {
    EXPECT_EQ(ParseCreateRequest(json::parse(body)).status().code(), ErrorCode::kInvalidArgument)
        << body;
  }
}

TEST(OllamaCreateTest, AGgufPathIsAFileAndWhatDoesNotMapIsUnsupported) {
  Result<CreateRequest> file =
      ParseCreateRequest(json::parse(R"({"model": "m", "from": "/data/m.gguf"})"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->file, std::filesystem::path("/data/m.gguf"));
  EXPECT_TRUE(file->stream);
  for (const char* body : {R"({"model": "m", "from": "/data/m.gguf", "system": "x"})",
                           R"({"model": "m", "files": {"m.gguf": "sha256:00"}})",
                           R"({"model": "m", "from": "tiny", "adapters": {"a.gguf": "sha256:00"}})",
                           R"({"model": "m", "from": "tiny", "template": "{{ .Prompt }}"})",
                           R"({"model": "m", "from": "tiny", "quantize": "q4_K_M"})"}) {
    EXPECT_EQ(ParseCreateRequest(json::parse(body)).status().code(), ErrorCode::kUnsupported)
        << body;
  }
  for (const char* body : {R"({"from": "tiny"})", R"({"model": "m"})",
                           R"({"model": "m", "from": "tiny", "parameters": [1]})",
                           R"({"model": "m", "from": "tiny", "parameters": {"top_k": "x"}})",
                           R"({"model": "m", "from": "tiny", "stream": "yes"})"}) {
    EXPECT_EQ(ParseCreateRequest(json::parse(body)).status().code(), ErrorCode::kInvalidArgument)
        << body;
  }
}

TEST(OllamaCreateTest, LayeredOnAPresetKeepsItsBaseAndDefaults) {
  models::ModelPreset base{.from = "tiny",
                           .system = "s",
                           .parameters = {{"top_k", 5}, {"num_predict", 3}},
                           .messages = json::array({{{"role", "user"}, {"content", "a"}}})};
  models::ModelPreset top{.from = "mario",
                          .system = "",
                          .parameters = {{"num_predict", 2}},
                          .messages = json::array({{{"role", "user"}, {"content", "b"}}})};
  models::ModelPreset layered = Layered(base, top);
  EXPECT_EQ(layered.from, "tiny");
  EXPECT_EQ(layered.system, "s");
  EXPECT_EQ(layered.parameters, (json{{"top_k", 5}, {"num_predict", 2}}));
  EXPECT_EQ(Defaults(layered), (json{{"top_k", 5}, {"max_tokens", 2}}));
  ASSERT_EQ(layered.messages.size(), 2u);
  EXPECT_EQ(layered.messages[0]["content"], "a");
}

}  // namespace
}  // namespace zest::api::ollama
