// OpenAI's transcription answers (POST /v1/audio/transcriptions and
// /translations): a Transcript (engines/transcription.h) in each
// `response_format`: json, text, srt, vtt, verbose_json. Pure.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/transcription.h"

namespace zest::api::openai {

enum class TranscriptFormat { kJson, kText, kSrt, kVtt, kVerboseJson };

// kInvalidArgument naming the formats for anything else; "" is json.
Result<TranscriptFormat> ParseTranscriptFormat(std::string_view name);

struct TranscriptOptions {
  TranscriptFormat format = TranscriptFormat::kJson;
  bool translate = false;  // "task": "translate"
  // verbose_json's timestamp_granularities: segments (the default) and/or words.
  bool segments = true;
  bool words = false;
};

struct FormattedTranscript {
  std::string content_type;
  std::string body;
};

FormattedTranscript FormatTranscript(const engines::Transcript& transcript,
                                     const TranscriptOptions& options);

// "00:01:02,345" (srt) or "00:01:02.345" (vtt) for 62.345 s.
std::string Timestamp(double seconds, char decimal_mark);

}  // namespace zest::api::openai
