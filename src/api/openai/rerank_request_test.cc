#include "api/openai/rerank_request.h"

#include <gtest/gtest.h>

namespace zest::api::openai {
namespace {

using nlohmann::json;

TEST(RerankRequestTest, TakesJinaAndCohereShapes) {
  Result<RerankRequest> r = ParseRerankRequest(json::parse(R"({
      "model": "m", "query": "q", "documents": ["a", {"text": "b"}, "c"],
      "top_n": 2, "return_documents": true})"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->documents, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r->top_n, 2u);
  EXPECT_TRUE(r->return_documents);
  EXPECT_EQ(r->engine_body, (json{{"query", "q"}, {"documents", {"a", "b", "c"}}}));
  Result<RerankRequest> all =
      ParseRerankRequest(json::parse(R"({"query": "q", "documents": ["a", "b"], "top_n": 9})"));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->top_n, 2u);  // no more than there are
  EXPECT_FALSE(all->return_documents);
}

TEST(RerankRequestTest, RefusesWhatItCannotScoreNamingTheField) {
  auto error = [](const char* body) {
    Result<RerankRequest> r = ParseRerankRequest(json::parse(body));
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_NE(error(R"({"documents": ["a"]})").find("query"), std::string::npos);
  EXPECT_NE(error(R"({"query": "", "documents": ["a"]})").find("query"), std::string::npos);
  EXPECT_NE(error(R"({"query": "q", "documents": []})").find("documents"), std::string::npos);
  EXPECT_NE(error(R"({"query": "q", "documents": [1]})").find("documents[0]"), std::string::npos);
  EXPECT_NE(error(R"({"query": "q", "documents": [{"txt": "a"}]})").find("documents[0]"),
            std::string::npos);
  EXPECT_NE(error(R"({"query": "q", "documents": ["a"], "top_n": 0})").find("top_n"),
            std::string::npos);
  EXPECT_NE(error(R"({"query": "q", "documents": ["a"], "return_documents": 1})")
                .find("return_documents"),
            std::string::npos);
  json many = {{"query", "q"}, {"documents", json::array()}};
  for (std::size_t i = 0; i <= kMaxRerankDocuments; ++i) many["documents"].push_back("d");
  EXPECT_FALSE(ParseRerankRequest(many).ok());
}

TEST(RerankRequestTest, AnswersBestFirstCutToTopN) {
  RerankRequest r =
      *ParseRerankRequest(json::parse(R"({"query": "q", "documents": ["a", "b", "c"], "top_n": 2,
                      "return_documents": true})"));
  const json engine = json::parse(R"({"results": [
      {"index": 0, "relevance_score": 0.1}, {"index": 1, "relevance_score": 0.9},
      {"index": 2, "relevance_score": 0.5}], "usage": {"prompt_tokens": 30, "total_tokens": 30}})");
  Result<json> out = RerankAnswer(r, "my-reranker", engine);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)["model"], "my-reranker");
  EXPECT_EQ((*out)["object"], "list");
  EXPECT_EQ((*out)["usage"]["prompt_tokens"], 30);
  ASSERT_EQ((*out)["results"].size(), 2u);
  EXPECT_EQ((*out)["results"][0],
            (json{{"index", 1}, {"relevance_score", 0.9}, {"document", {{"text", "b"}}}}));
  EXPECT_EQ((*out)["results"][1]["index"], 2);
  // An answer that misses a document, or scores one twice, is the engine's failure.
  const json partial = json::parse(R"({"results": [{"index": 0, "relevance_score": 0.1},
      {"index": 0, "relevance_score": 0.2}, {"index": 1, "relevance_score": 0.3}]})");
  EXPECT_EQ(RerankAnswer(r, "m", partial).status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(RerankAnswer(r, "m", json()).status().code(), ErrorCode::kEngineFailed);
}

}  // namespace
}  // namespace zest::api::openai
