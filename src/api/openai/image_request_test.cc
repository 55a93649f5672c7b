#include "api/openai/image_request.h"

#include <gtest/gtest.h>

namespace zest::api::openai {
namespace {

TEST(ImageRequestTest, TakesOpenAisFields) {
  std::string param;
  Result<ImageRequest> r = ParseImageRequest(
      R"({"model":"sd","prompt":"a red fox","n":3,"size":"512x768","response_format":"b64_json",
          "output_format":"webp","output_compression":70,"quality":"high","user":"u1",
          "priority":"low"})",
      &param);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->model, "sd");
  EXPECT_EQ(r->priority, "low");
  EXPECT_EQ(r->job.prompt, "a red fox");
  EXPECT_EQ(r->job.n, 3);
  EXPECT_EQ(r->job.width, 512);
  EXPECT_EQ(r->job.height, 768);
  EXPECT_EQ(r->output_format, "webp");
  EXPECT_EQ(r->output_compression, 70);
}

TEST(ImageRequestTest, DefaultsAreOneImageOfTheModelsSizeAsPng) {
  std::string param;
  Result<ImageRequest> r = ParseImageRequest(R"({"model":"sd","prompt":"x"})", &param);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->job.n, 1);
  EXPECT_EQ(r->job.width, 0);
  EXPECT_EQ(r->job.height, 0);
  EXPECT_EQ(r->output_format, "png");
  EXPECT_FALSE(r->output_compression.has_value());
  EXPECT_TRUE(ParseImageRequest(R"({"model":"sd","prompt":"x","size":"auto"})", &param).ok());
}

struct BadCase {
  const char* body;
  const char* param;  // the field the error names
};

class ImageRequestBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ImageRequestBadTest, RejectsWithTheFieldNamed) {
  std::string param = "unset";
  Result<ImageRequest> r = ParseImageRequest(GetParam().body, &param);
  ASSERT_FALSE(r.ok()) << GetParam().body;
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(param, GetParam().param) << r.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ImageRequestBadTest,
    ::testing::Values(
        BadCase{"not json", ""}, BadCase{"[]", ""}, BadCase{R"({"prompt":"x"})", "model"},
        BadCase{R"({"model":"sd"})", "prompt"}, BadCase{R"({"model":"sd","prompt":7})", "prompt"},
        BadCase{R"({"model":"sd","prompt":"x","n":0})", "n"},
        BadCase{R"({"model":"sd","prompt":"x","n":11})", "n"},
        BadCase{R"({"model":"sd","prompt":"x","n":1.5})", "n"},
        BadCase{R"({"model":"sd","prompt":"x","size":"512"})", "size"},
        BadCase{R"({"model":"sd","prompt":"x","size":"500x512"})", "size"},
        BadCase{R"({"model":"sd","prompt":"x","size":"4096x4096"})", "size"},
        BadCase{R"({"model":"sd","prompt":"x","size":"512x512x"})", "size"},
        BadCase{R"({"model":"sd","prompt":"x","response_format":"url"})", "response_format"},
        BadCase{R"({"model":"sd","prompt":"x","output_format":"gif"})", "output_format"},
        BadCase{R"({"model":"sd","prompt":"x","output_compression":101})", "output_compression"},
        BadCase{R"({"model":"sd","prompt":"x","background":"transparent"})", "background"},
        BadCase{R"({"model":"sd","prompt":"x","stream":true})", "stream"}));

TEST(ImageRequestTest, APromptOverTheLimitIsRefused) {
  std::string param;
  const std::string body =
      R"({"model":"sd","prompt":")" + std::string(kMaxImagePromptChars + 1, 'a') + R"("})";
  EXPECT_FALSE(ParseImageRequest(body, &param).ok());
  EXPECT_EQ(param, "prompt");
}

}  // namespace
}  // namespace zest::api::openai
