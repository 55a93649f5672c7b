// Validation of OpenAI speech requests (POST /v1/audio/speech): the JSON
// body becomes a SpeechRequest, or a 400 naming the bad field. OpenAI's
// voices all map to the model's default speaker (llama-tts speaks with
// the voice its model was made with); `instructions` is accepted and not
// used (no engine here takes them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/speech_format.h"

namespace zest::api::openai {

// OpenAI's voice names, which GET /v1/audio/voices lists.
const std::vector<std::string>& SpeechVoices();

// OpenAI's bounds on `speed`.
inline constexpr double kMinSpeechSpeed = 0.25;
inline constexpr double kMaxSpeechSpeed = 4.0;

enum class SpeechStream { kNone, kAudio, kSse };

struct SpeechRequest {
  std::string model;
  std::string input;
  std::string voice = "alloy";
  std::string instructions;  // accepted; no engine here takes them
  std::string priority;      // the body's `priority`, or ""
  double speed = 1.0;
  engines::SpeechFormat format = engines::SpeechFormat::kMp3;
  // `stream_format`: "audio" (the default: the audio as the body) or "sse"
  // (speech.audio.delta events, then speech.audio.done).
  SpeechStream stream = SpeechStream::kNone;
};

// kInvalidArgument for malformed JSON, a missing `model`, an empty `input`
// or one over `max_chars` characters (UTF-8 code points), an unknown
// `voice`, a `speed` out of 0.25..4, a `response_format` other than mp3,
// opus, aac, flac, wav, pcm, or a `stream_format` other than audio or sse.
// The bad field's name goes to `*param`.
Result<SpeechRequest> ParseSpeechRequest(std::string_view body, size_t max_chars,
                                         std::string* param);

// Characters (UTF-8 code points) in `text`.
size_t Utf8Length(std::string_view text);

}  // namespace zest::api::openai
