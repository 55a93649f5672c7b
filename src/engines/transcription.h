// Speech to text, engine-neutral: what the API asks of a speech engine
// (TranscriptionJob) and what it gets back (Transcript), so that api/ knows
// OpenAI's shapes and engines/ knows each engine's (EngineAdapter's
// TranscriptionCall and ReadTranscript). Plain values.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zest::engines {

struct TranscriptionJob {
  std::string audio;     // the file's bytes (a format the engine decodes)
  std::string filename;  // as uploaded; for the engine's logs only
  std::string language;  // ISO 639-1 ("en"); empty = detect
  std::string prompt;    // text to continue from (style, spellings)
  std::optional<double> temperature;
  bool translate = false;  // into English
};

struct TranscriptWord {
  std::string word;
  double start = 0;  // seconds
  double end = 0;
};

struct TranscriptSegment {
  int id = 0;
  double start = 0;  // seconds
  double end = 0;
  std::string text;
  std::vector<int> tokens;
  double temperature = 0;
  double avg_logprob = 0;
  double no_speech_prob = 0;
};

struct Transcript {
  std::string language;  // the language's English name, lowercase ("english")
  double duration = 0;   // of the audio, seconds
  std::string text;      // the whole transcript, trimmed
  std::vector<TranscriptSegment> segments;
  std::vector<TranscriptWord> words;
};

// One HTTP request to an engine, in its own shape.
struct EngineCall {
  std::string path;
  std::string content_type;
  std::string body;
};

}  // namespace zest::engines
