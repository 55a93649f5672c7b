#include "http/router.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

Handler Noop() {
  return [](Request&, ResponseWriter&) -> boost::asio::awaitable<void> { co_return; };
}

TEST(RouterTest, MatchesLiteralsAndCaptures) {
  Router router;
  router.Add("GET", "/v1/models", Noop());
  router.Add("GET", "/v1/models/{id}/info", Noop());
  router.Add("GET", "/", Noop());

  EXPECT_EQ(router.Find("GET", "/v1/models").kind, Router::MatchKind::kFound);
  EXPECT_EQ(router.Find("GET", "/").kind, Router::MatchKind::kFound);
  Router::Match match = router.Find("GET", "/v1/models/llama/info");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.params, std::vector<std::string>{"llama"});
  EXPECT_EQ(router.Find("GET", "/v1/models/a/b/info").kind, Router::MatchKind::kNoRoute);
  EXPECT_EQ(router.Find("GET", "/v1/models//info").kind, Router::MatchKind::kNoRoute);
  EXPECT_EQ(router.Find("GET", "/v1/model").kind, Router::MatchKind::kNoRoute);
  EXPECT_EQ(router.Find("GET", "/v1/models/x").kind, Router::MatchKind::kNoRoute);
}

TEST(RouterTest, RestCaptureTakesSlashes) {
  Router router;
  router.Add("DELETE", "/api/models/{id...}", Noop());
  Router::Match match = router.Find("DELETE", "/api/models/org/model-7b/q4");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.params, std::vector<std::string>{"org/model-7b/q4"});

  match = router.Find("DELETE", "/api/models/single");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.params, std::vector<std::string>{"single"});

  // Escaped names arrive decoded ('+' is itself in a path).
  match = router.Find("DELETE", "/api/models/org/repo%3AQ8_0");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.params, std::vector<std::string>{"org/repo:Q8_0"});
  match = router.Find("DELETE", "/api/models/a+b%2");
  EXPECT_EQ(match.params, std::vector<std::string>{"a+b%2"});

  // The rest must not be empty.
  EXPECT_EQ(router.Find("DELETE", "/api/models/").kind, Router::MatchKind::kNoRoute);
  EXPECT_EQ(router.Find("DELETE", "/api/models").kind, Router::MatchKind::kNoRoute);
}

TEST(RouterTest, CapturesComeInPatternOrder) {
  Router router;
  router.Add("POST", "/a/{x}/b/{rest...}", Noop());
  Router::Match match = router.Find("POST", "/a/1/b/2/3");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.params, (std::vector<std::string>{"1", "2/3"}));
}

TEST(RouterTest, WrongMethodListsAllowedMethods) {
  Router router;
  router.Add("GET", "/v1/models/{id...}", Noop());
  router.Add("DELETE", "/v1/models/{id...}", Noop());
  router.Add("GET", "/v1/models/{id...}", Noop());  // duplicates are listed once
  Router::Match match = router.Find("POST", "/v1/models/a/b");
  EXPECT_EQ(match.kind, Router::MatchKind::kWrongMethod);
  EXPECT_EQ(match.handler, nullptr);
  EXPECT_EQ(match.allowed, (std::vector<std::string>{"GET", "DELETE"}));
}

TEST(RouterTest, FirstRegisteredRouteWins) {
  Router router;
  int hit = 0;
  router.Add("GET", "/v1/models/special",
             [&hit](Request&, ResponseWriter&) -> boost::asio::awaitable<void> {
               hit = 1;
               co_return;
             });
  router.Add("GET", "/v1/models/{id}", Noop());
  Router::Match match = router.Find("GET", "/v1/models/special");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_TRUE(match.params.empty());
  EXPECT_EQ(router.Find("GET", "/v1/models/other").params, std::vector<std::string>{"other"});
}

TEST(RouterTest, RestCaptureMustBeLast) {
  Router router;
  EXPECT_THROW(router.Add("GET", "/a/{rest...}/b", Noop()), std::invalid_argument);
}

TEST(RequestTest, FindHeaderIgnoresCase) {
  Headers headers = {{"Content-Type", "application/json"}, {"X-Api-Key", "k"}};
  EXPECT_EQ(FindHeader(headers, "content-type"), "application/json");
  EXPECT_EQ(FindHeader(headers, "X-API-KEY"), "k");
  EXPECT_EQ(FindHeader(headers, "Authorization"), "");
  Request request;
  request.headers = headers;
  EXPECT_EQ(request.Header("CONTENT-TYPE"), "application/json");
}

}  // namespace
}  // namespace zest::http
