// ParseSpeechRequest: OpenAI's speech body, and each way it can be wrong.
#include "api/openai/speech_request.h"

#include <gtest/gtest.h>

namespace zest::api::openai {
namespace {

Result<SpeechRequest> Parse(std::string_view body, std::string* param, size_t max = 20) {
  return ParseSpeechRequest(body, max, param);
}

TEST(SpeechRequestTest, ReadsOpenAisFieldsWithItsDefaults) {
  std::string param;
  Result<SpeechRequest> r = Parse(R"({"model":"talker","input":"Hello there"})", &param);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->voice, "alloy");
  EXPECT_EQ(r->format, engines::SpeechFormat::kMp3);
  EXPECT_EQ(r->stream, SpeechStream::kNone);
  EXPECT_DOUBLE_EQ(r->speed, 1.0);
  r = Parse(R"({"model":"t","input":"hi","voice":"shimmer","speed":0.25,
                "response_format":"pcm","stream_format":"sse","instructions":"softly"})",
            &param);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->voice, "shimmer");
  EXPECT_EQ(r->format, engines::SpeechFormat::kPcm);
  EXPECT_EQ(r->stream, SpeechStream::kSse);
  EXPECT_EQ(r->instructions, "softly");
}

TEST(SpeechRequestTest, EachBadFieldIsNamed) {
  struct Case {
    const char* body;
    const char* param;
  };
  for (const Case& c : {
           Case{R"({"input":"hi"})", "model"},
           Case{R"({"model":"t"})", "input"},
           Case{R"({"model":"t","input":"  \n"})", "input"},
           Case{R"({"model":"t","input":"123456789012345678901"})", "input"},
           Case{R"({"model":"t","input":"hi","voice":"bob"})", "voice"},
           Case{R"({"model":"t","input":"hi","speed":5})", "speed"},
           Case{R"({"model":"t","input":"hi","speed":"fast"})", "speed"},
           Case{R"({"model":"t","input":"hi","response_format":"ogg"})", "response_format"},
           Case{R"({"model":"t","input":"hi","stream_format":"chunks"})", "stream_format"},
       }) {
    std::string param;
    Result<SpeechRequest> r = Parse(c.body, &param);
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << c.body;
    EXPECT_EQ(param, c.param) << c.body;
  }
}

TEST(SpeechRequestTest, TheLimitCountsCharactersNotBytes) {
  std::string param;
  // Twenty characters, forty bytes.
  EXPECT_TRUE(Parse(R"({"model":"t","input":"éééééééééééééééééééé"})", &param).ok());
  EXPECT_EQ(Utf8Length("héllo"), 5u);
}

}  // namespace
}  // namespace zest::api::openai
