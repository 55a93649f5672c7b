#include "api/request/openai_answer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zest::api {
namespace {

using nlohmann::json;

TEST(OpenAiAnswerTest, StreamsPassThroughAsTheyCame) {
  std::shared_ptr<relay::AnswerTranslator> t = PassThroughAnswer();
  EXPECT_EQ(t, PassThroughAnswer());  // one, shared
  EXPECT_TRUE(t->sse());
  for (std::string_view data : {R"({"choices":[]})", "[DONE]", "not json"}) {
    relay::EngineEvent event(data);
    EXPECT_FALSE(t->StreamEvent(event)) << data;
    EXPECT_FALSE(event.parsed()) << data;  // the engine's bytes, never read
  }
  EXPECT_EQ(t->End(), "data: [DONE]\n\n");
  // An engine's unfinished last event goes out as it came, whole or not.
  EXPECT_EQ(t->StreamEnd(false, "data: {\"par"), "data: {\"par");
  EXPECT_EQ(t->StreamEnd(true, ""), "");
  EXPECT_EQ(t->ErrorEvent(500, R"({"error":{"message":"x"}})"),
            "data: {\"error\":{\"message\":\"x\"}}\n\n");
}

TEST(OpenAiAnswerTest, ErrorsTakeOpenAisShape) {
  const std::string event = PassThroughAnswer()->StreamError(EngineFailed("gone"));
  ASSERT_TRUE(event.starts_with("data: "));
  const json body = json::parse(event.substr(6));
  EXPECT_EQ(body["error"]["message"], "gone");
  EXPECT_EQ(body["error"]["code"], "engine_failed");
}

TEST(OpenAiAnswerTest, WholeAnswersKeepStatusAndTypeAndTakeTheClientsName) {
  std::shared_ptr<relay::AnswerTranslator> t = PassThroughAnswer();
  Result<relay::ApiAnswer> error = t->Answer(400, "{\"error\":1}", "application/json", nullptr);
  ASSERT_TRUE(error.ok());  // the engine's error answer, as it is
  EXPECT_EQ(error->status, 400);
  EXPECT_EQ(error->body, "{\"error\":1}");
  const std::string name = "alias";
  Result<relay::ApiAnswer> renamed =
      t->Answer(200, R"({"model":"engine","x":1})", "application/json; charset=utf-8", &name);
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->content_type, "application/json; charset=utf-8");
  EXPECT_EQ(json::parse(renamed->body)["model"], "alias");
}

TEST(OpenAiAnswerTest, StartsEveryRelayRequest) {
  relay::RelayRequest request;
  AnswerAsOpenAi(request);
  EXPECT_EQ(request.translator, PassThroughAnswer());
  EXPECT_NE(request.send_error, nullptr);
}

}  // namespace
}  // namespace zest::api
