#include "api/request/errors.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "relay/engine_relay.h"

namespace zest::api {
namespace {

using nlohmann::json;

TEST(ErrorsTest, BodyHasOpenAiShape) {
  json body = json::parse(
      ErrorBody("model 'x' not found", "invalid_request_error", "model_not_found", "model"));
  ASSERT_TRUE(body.contains("error"));
  const json& e = body["error"];
  EXPECT_EQ(e["message"], "model 'x' not found");
  EXPECT_EQ(e["type"], "invalid_request_error");
  EXPECT_EQ(e["code"], "model_not_found");
  EXPECT_EQ(e["param"], "model");
}

TEST(ErrorsTest, EmptyParamAndCodeAreNull) {
  json e = json::parse(ErrorBody("boom", "server_error", ""))["error"];
  EXPECT_TRUE(e["param"].is_null());
  EXPECT_TRUE(e["code"].is_null());
}

TEST(ErrorsTest, StatusCodesMapToHttp) {
  EXPECT_EQ(MapStatus(InvalidArgument("x")).http_status, 400);
  EXPECT_EQ(MapStatus(NotFound("x")).code, "model_not_found");
  EXPECT_EQ(MapStatus(NotFound("x")).http_status, 404);
  EXPECT_EQ(MapStatus(Status(ErrorCode::kTooLarge, "x")).http_status, 413);
  EXPECT_EQ(MapStatus(EngineFailed("x")).http_status, 500);
  EXPECT_EQ(MapStatus(InsufficientMemory("x")).http_status, 507);
  EXPECT_EQ(MapStatus(InsufficientMemory("x")).code, "insufficient_memory");
  EXPECT_EQ(MapStatus(Unavailable("x")).http_status, 503);
}

TEST(ErrorsTest, HttpErrorsRenderWithTheirCodes) {
  EXPECT_EQ(json::parse(RenderHttpError(405, "no"))["error"]["code"], "method_not_allowed");
  EXPECT_EQ(json::parse(RenderHttpError(413, "big"))["error"]["code"], "request_too_large");
  EXPECT_EQ(json::parse(RenderHttpError(500, "bad"))["error"]["type"], "server_error");
}

TEST(ErrorsTest, InvalidUtf8InMessagesDoesNotThrow) {
  std::string bad = "bad \xff byte";
  json parsed;
  EXPECT_NO_THROW(parsed = json::parse(ErrorBody(bad, "server_error", "x")));
}

// The relay decides Retry-After by ErrorCode without this mapping (it
// includes nothing of api/): the server's failures, 5xx but 507.
TEST(ErrorsTest, RetryAfterFollowsTheHttpStatus) {
  for (ErrorCode code :
       {ErrorCode::kOk, ErrorCode::kInvalidArgument, ErrorCode::kNotFound,
        ErrorCode::kAlreadyExists, ErrorCode::kTooLarge, ErrorCode::kUnavailable,
        ErrorCode::kEngineFailed, ErrorCode::kUnsupported, ErrorCode::kCancelled,
        ErrorCode::kTimeout, ErrorCode::kQueueFull, ErrorCode::kQueueTimeout,
        ErrorCode::kInsufficientMemory, ErrorCode::kConflict, ErrorCode::kInternal}) {
    const Status status(code, "x");
    const int http = MapStatus(status).http_status;
    EXPECT_EQ(relay::SaysRetryAfter(status), http >= 500 && http != 507) << ErrorCodeName(code);
  }
}

}  // namespace
}  // namespace zest::api
