#include "api/openai/transcript_format.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace zest::api::openai {
namespace {

using nlohmann::json;

// Cue text: trimmed, as OpenAI's subtitles have it.
std::string Trimmed(const std::string& text) {
  std::size_t first = text.find_first_not_of(" \n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \n") - first + 1);
}

// Seconds as OpenAI writes them: rounded to the millisecond (whisper's
// floats carry binary noise, 0.5700000000000001).
double Ms(double seconds) { return std::round(seconds * 1000) / 1000; }

std::string Subtitles(const engines::Transcript& t, bool vtt) {
  std::string out = vtt ? "WEBVTT\n\n" : "";
  int n = 0;
  for (const auto& s : t.segments) {
    if (!vtt) out += std::to_string(++n) + "\n";
    out += Timestamp(s.start, vtt ? '.' : ',') + " --> " + Timestamp(s.end, vtt ? '.' : ',') +
           "\n" + Trimmed(s.text) + "\n\n";
  }
  return out;
}

json Verbose(const engines::Transcript& t, const TranscriptOptions& o) {
  json j = {{"task", o.translate ? "translate" : "transcribe"},
            {"language", t.language},
            {"duration", Ms(t.duration)},
            {"text", t.text}};
  if (o.segments) {
    json segments = json::array();
    for (const auto& s : t.segments) {
      segments.push_back({{"id", s.id},
                          {"seek", 0},
                          {"start", Ms(s.start)},
                          {"end", Ms(s.end)},
                          {"text", s.text},
                          {"tokens", s.tokens},
                          {"temperature", s.temperature},
                          {"avg_logprob", s.avg_logprob},
                          {"compression_ratio", 0.0},
                          {"no_speech_prob", s.no_speech_prob}});
    }
    j["segments"] = std::move(segments);
  }
  if (o.words) {
    json words = json::array();
    for (const auto& w : t.words) {
      words.push_back({{"word", Trimmed(w.word)}, {"start", Ms(w.start)}, {"end", Ms(w.end)}});
    }
    j["words"] = std::move(words);
  }
  return j;
}

}  // namespace

Result<TranscriptFormat> ParseTranscriptFormat(std::string_view name) {
  if (name.empty() || name == "json") return TranscriptFormat::kJson;
  if (name == "text") return TranscriptFormat::kText;
  if (name == "srt") return TranscriptFormat::kSrt;
  if (name == "vtt") return TranscriptFormat::kVtt;
  if (name == "verbose_json") return TranscriptFormat::kVerboseJson;
  return InvalidArgument("response_format must be json, text, srt, vtt or verbose_json");
}

std::string Timestamp(double seconds, char decimal_mark) {
  const long long ms = std::llround(std::max(seconds, 0.0) * 1000);
  char out[32];
  std::snprintf(out, sizeof(out), "%02lld:%02lld:%02lld%c%03lld", ms / 3'600'000, ms / 60'000 % 60,
                ms / 1000 % 60, decimal_mark, ms % 1000);
  return out;
}

FormattedTranscript FormatTranscript(const engines::Transcript& t,
                                     const TranscriptOptions& options) {
  // What OpenAI bills by for whisper-1: the audio's seconds.
  const json usage = {{"type", "duration"},
                      {"seconds", static_cast<long long>(std::ceil(t.duration))}};
  switch (options.format) {
    case TranscriptFormat::kText:
      return {"text/plain; charset=utf-8", t.text + "\n"};
    case TranscriptFormat::kSrt:
      return {"application/x-subrip", Subtitles(t, false)};
    case TranscriptFormat::kVtt:
      return {"text/vtt", Subtitles(t, true)};
    case TranscriptFormat::kVerboseJson: {
      json j = Verbose(t, options);
      j["usage"] = usage;
      return {"application/json", j.dump()};
    }
    case TranscriptFormat::kJson:
      break;
  }
  return {"application/json", json{{"text", t.text}, {"usage", usage}}.dump()};
}

}  // namespace zest::api::openai
