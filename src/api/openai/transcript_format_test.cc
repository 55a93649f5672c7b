#include "api/openai/transcript_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zest::api::openai {
namespace {

engines::Transcript TwoSegments() {
  engines::Transcript t;
  t.language = "english";
  t.duration = 62.3450000001;
  t.text = "Hello there. General Kenobi.";
  t.segments = {{0, 0.0, 1.5700000000000001, " Hello there.", {1, 2}, 0, -0.1, 0.01},
                {1, 60.0, 62.345, " General Kenobi.", {3}, 0.2, -0.3, 0.02}};
  t.words = {{" Hello", 0, 0.5}, {" there.", 0.5, 1.57}};
  return t;
}

TEST(TranscriptFormat, ParsesTheFiveFormats) {
  EXPECT_EQ(ParseTranscriptFormat("").value(), TranscriptFormat::kJson);
  EXPECT_EQ(ParseTranscriptFormat("verbose_json").value(), TranscriptFormat::kVerboseJson);
  EXPECT_EQ(ParseTranscriptFormat("srt").value(), TranscriptFormat::kSrt);
  EXPECT_FALSE(ParseTranscriptFormat("xml").ok());
}

TEST(TranscriptFormat, Timestamps) {
  EXPECT_EQ(Timestamp(62.345, ','), "00:01:02,345");
  EXPECT_EQ(Timestamp(3600 * 2 + 0.0004, '.'), "02:00:00.000");
  EXPECT_EQ(Timestamp(1.9996, '.'), "00:00:02.000");
  EXPECT_EQ(Timestamp(-1, ','), "00:00:00,000");
}

TEST(TranscriptFormat, JsonAndText) {
  FormattedTranscript json = FormatTranscript(TwoSegments(), {});
  EXPECT_EQ(json.content_type, "application/json");
  auto j = nlohmann::json::parse(json.body);
  EXPECT_EQ(j["text"], "Hello there. General Kenobi.");
  EXPECT_EQ(j["usage"]["seconds"], 63) << "whole seconds, rounded up";
  FormattedTranscript text = FormatTranscript(TwoSegments(), {TranscriptFormat::kText});
  EXPECT_EQ(text.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(text.body, "Hello there. General Kenobi.\n");
}

TEST(TranscriptFormat, Subtitles) {
  EXPECT_EQ(FormatTranscript(TwoSegments(), {TranscriptFormat::kSrt}).body,
            "1\n00:00:00,000 --> 00:00:01,570\nHello there.\n\n"
            "2\n00:01:00,000 --> 00:01:02,345\nGeneral Kenobi.\n\n");
  FormattedTranscript vtt = FormatTranscript(TwoSegments(), {TranscriptFormat::kVtt});
  EXPECT_EQ(vtt.content_type, "text/vtt");
  EXPECT_EQ(vtt.body,
            "WEBVTT\n\n00:00:00.000 --> 00:00:01.570\nHello there.\n\n"
            "00:01:00.000 --> 00:01:02.345\nGeneral Kenobi.\n\n");
}

TEST(TranscriptFormat, VerboseJsonWithTheGranularitiesAsked) {
  TranscriptOptions o{TranscriptFormat::kVerboseJson, /*translate=*/true, /*segments=*/false,
                      /*words=*/true};
  auto j = nlohmann::json::parse(FormatTranscript(TwoSegments(), o).body);
  EXPECT_EQ(j["task"], "translate");
  EXPECT_EQ(j["language"], "english");
  EXPECT_DOUBLE_EQ(j["duration"].get<double>(), 62.345);
  EXPECT_FALSE(j.contains("segments"));
  ASSERT_EQ(j["words"].size(), 2u);
  EXPECT_EQ(j["words"][1]["word"], "there.");
  EXPECT_DOUBLE_EQ(j["words"][1]["end"].get<double>(), 1.57);
  o = {TranscriptFormat::kVerboseJson};
  j = nlohmann::json::parse(FormatTranscript(TwoSegments(), o).body);
  EXPECT_EQ(j["task"], "transcribe");
  ASSERT_EQ(j["segments"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["segments"][0]["end"].get<double>(), 1.57);
  EXPECT_EQ(j["segments"][1]["tokens"], nlohmann::json::array({3}));
  EXPECT_FALSE(j.contains("words"));
}

}  // namespace
}  // namespace zest::api::openai
