#include "api/ollama/ollama_embed.h"

#include <gtest/gtest.h>

#include "engines/openai_request_json.h"

namespace zest::api::ollama {
namespace {

using nlohmann::json;

TEST(OllamaEmbedTest, InputIsAStringOrStrings) {
  Result<EmbedRequest> one = ParseEmbedRequest({{"model", "e"}, {"input", "hello"}}, false);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->inputs, std::vector<std::string>{"hello"});
  Result<EmbedRequest> many = ParseEmbedRequest(
      {{"model", "e:latest"}, {"input", {"a", "b"}}, {"keep_alive", "5m"}, {"dimensions", 8}},
      false);
  ASSERT_TRUE(many.ok()) << many.status().message();
  EXPECT_EQ(many->inputs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(many->keep_alive, Duration(std::chrono::minutes(5)));
  EXPECT_EQ(many->dimensions, 8);
  Result<EmbedRequest> legacy = ParseEmbedRequest({{"model", "e"}, {"prompt", "hi"}}, true);
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->inputs, std::vector<std::string>{"hi"});
  EXPECT_TRUE(legacy->legacy);
}

TEST(OllamaEmbedTest, RefusesWhatIsNotAnEmbedRequest) {
  EXPECT_FALSE(ParseEmbedRequest({{"input", "x"}}, false).ok());
  EXPECT_FALSE(ParseEmbedRequest({{"model", "e"}, {"input", {1, 2}}}, false).ok());
  EXPECT_FALSE(ParseEmbedRequest({{"model", "e"}, {"prompt", {"a"}}}, true).ok());
  EXPECT_FALSE(ParseEmbedRequest({{"model", "e"}, {"input", "x"}, {"dimensions", 0}}, false).ok());
  EXPECT_FALSE(
      ParseEmbedRequest({{"model", "e"}, {"input", "x"}, {"keep_alive", "soon"}}, false).ok());
}

TEST(OllamaEmbedTest, TheEngineIsAskedInOpenAisShape) {
  EmbedRequest request;
  request.inputs = {"a", "b"};
  request.dimensions = 4;
  const engines::ChatRequest typed = EmbedChatRequest(request);
  EXPECT_EQ(typed.kind, engines::Capability::kEmbeddings);
  // As the adapter writes it for an engine that knows the model as "e"
  // (FastFlowLM's tag, or zest's name under llama-server's --alias).
  engines::ChatCallOptions options;
  options.model = "e";
  EXPECT_EQ(
      json::parse(engines::OpenAiRequestText(typed, options)),
      (json{
          {"model", "e"}, {"input", {"a", "b"}}, {"encoding_format", "float"}, {"dimensions", 4}}));
}

TEST(OllamaEmbedTest, TheAnswerIsOllamasInTheInputsOrder) {
  EmbedRequest request;
  request.model = "e:latest";
  request.inputs = {"a", "b"};
  const std::string engine =
      R"({"data":[{"index":1,"embedding":[0.3,0.4]},{"index":0,"embedding":[0.1,0.2]}],
          "usage":{"prompt_tokens":7,"total_tokens":7}})";
  Result<json> answer = OllamaEmbedAnswer(request, engine, 1234);
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  EXPECT_EQ(*answer, (json{{"model", "e:latest"},
                           {"embeddings", {{0.1, 0.2}, {0.3, 0.4}}},
                           {"total_duration", 1234},
                           {"prompt_eval_count", 7}}));
  request.legacy = true;
  EXPECT_EQ(*OllamaEmbedAnswer(request, engine, 1), (json{{"embedding", {0.1, 0.2}}}));
  EXPECT_EQ(OllamaEmbedAnswer(request, R"({"data":[{"index":"x"}]})", 1).status().code(),
            ErrorCode::kEngineFailed);
  EXPECT_EQ(OllamaEmbedAnswer(request, "[]", 1).status().code(), ErrorCode::kEngineFailed);
}

}  // namespace
}  // namespace zest::api::ollama
