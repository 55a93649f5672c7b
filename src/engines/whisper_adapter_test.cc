// WhisperAdapter's side of a transcription: the request in whisper-server's
// shape and its verbose_json answer read back, odd answers included.
#include "engines/whisper_adapter.h"

#include <gtest/gtest.h>

#include "http/multipart.h"

namespace zest::engines {
namespace {

TEST(WhisperAdapterTest, ReadsVerboseJson) {
  WhisperAdapter adapter(WhisperSetup{});
  Result<Transcript> t = adapter.ReadTranscript(200, R"({
      "language": "english", "duration": 12.5,
      "segments": [
        {"id": 0, "start": 0.0, "end": 2.0, "text": " Hello there.", "tokens": [50364, 2425],
         "words": [{"word": " Hello", "start": 0.0, "end": 0.8}]},
        {"id": 1, "start": 2.0, "end": 4.0, "text": " Bye.\n", "tokens": []}]})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->language, "english");
  EXPECT_DOUBLE_EQ(t->duration, 12.5);
  ASSERT_EQ(t->segments.size(), 2u);
  EXPECT_EQ(t->segments[0].tokens, (std::vector<int>{50364, 2425}));
  EXPECT_EQ(t->text, "Hello there. Bye.");
  ASSERT_EQ(t->words.size(), 1u);
  EXPECT_EQ(t->words[0].word, " Hello");
}

TEST(WhisperAdapterTest, BadUploadsAndOddAnswersAreErrorsNotCrashes) {
  WhisperAdapter adapter(WhisperSetup{});
  EXPECT_EQ(adapter.ReadTranscript(400, "Invalid request").status().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(adapter.ReadTranscript(500, "boom").status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(adapter.ReadTranscript(200, "not json").status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(adapter.ReadTranscript(200, R"({"duration": "long"})").status().code(),
            ErrorCode::kEngineFailed);
  EXPECT_EQ(adapter.ReadTranscript(200, R"({"segments": ["not an object"]})").status().code(),
            ErrorCode::kEngineFailed);
}

TEST(WhisperAdapterTest, AnUnknownLanguageIsTheClientsError) {
  WhisperAdapter adapter(WhisperSetup{});
  TranscriptionJob job;
  job.audio = "RIFF";
  job.language = "xx";
  EXPECT_EQ(adapter.TranscriptionCall(job).status().code(), ErrorCode::kInvalidArgument);
  job.language = "de";
  Result<EngineCall> call = adapter.TranscriptionCall(job);
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->path, "/inference");
  EXPECT_NE(call->body.find("verbose_json"), std::string::npos);
}

// Issue 52, 6: with a constant boundary, a WAV holding it ended its part
// and set response_format=text for the engine (zest then failed to read the
// answer: a 500). Each call has its own boundary now, so the audio cannot
// name it, and the form the engine gets has zest's fields only.
TEST(WhisperAdapterTest, TheEngineFormHasABoundaryOfItsOwnEachTime) {
  WhisperAdapter adapter(WhisperSetup{});
  TranscriptionJob job;
  job.audio =
      "RIFF\r\n--zest-whisper-form-7d1f0c\r\nContent-Disposition: form-data; "
      "name=\"response_format\"\r\n\r\ntext\r\n--zest-whisper-form-7d1f0c--\r\n";
  job.filename = "a\".wav\r\nX: 1";
  Result<EngineCall> one = adapter.TranscriptionCall(job);
  Result<EngineCall> two = adapter.TranscriptionCall(job);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_NE(one->content_type, two->content_type);
  const std::string boundary = one->content_type.substr(one->content_type.find("boundary=") + 9);
  auto form = http::ParseForm(one->body, boundary);
  ASSERT_TRUE(form.ok()) << form.status().message();
  int formats = 0;
  for (const http::FormPart& part : *form) formats += part.name == "response_format" ? 1 : 0;
  EXPECT_EQ(formats, 1);
  EXPECT_EQ(http::FindPart(*form, "response_format")->data, "verbose_json");
  EXPECT_EQ(http::FindPart(*form, "file")->data, job.audio);
  EXPECT_EQ(http::FindPart(*form, "file")->filename, "a.wavX: 1");
}

}  // namespace
}  // namespace zest::engines
