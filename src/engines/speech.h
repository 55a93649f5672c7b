// Text to speech, engine-neutral: what the API asks of a speech-out engine
// (SpeechJob) and what it gets back (SpeechAudio), so that api/ knows
// OpenAI's shapes and engines/ knows each engine's (EngineAdapter's
// SpeechCall and ReadSpeech). Plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace zest::engines {

struct SpeechJob {
  std::string text;   // what to say (the API has checked its length)
  int timeout_s = 0;  // the engine's run is killed past this; 0 = the engine's default
};

// A WAV file as the engine wrote it, with what its header says.
struct SpeechAudio {
  std::string wav;
  uint32_t sample_rate = 0;
  uint16_t channels = 0;
  uint16_t bits_per_sample = 0;
  double seconds = 0;      // the audio's length
  size_t data_offset = 0;  // where the samples start in `wav`
  size_t data_size = 0;
};

}  // namespace zest::engines
