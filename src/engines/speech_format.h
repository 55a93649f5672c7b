// The audio formats speech out answers in (OpenAI's `response_format`), and
// how ffmpeg makes each from the engine's WAV, at the speed asked for.
// Pure: the API checks a request with it, the audio converter runs the job
// it describes (audio_converter.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/speech.h"

namespace zest::engines {

enum class SpeechFormat { kMp3, kOpus, kAac, kFlac, kWav, kPcm };

// OpenAI's rate for `pcm`: raw 16-bit little-endian mono samples at 24 kHz.
inline constexpr int kPcmSampleRate = 24000;

// "mp3", "opus", "aac", "flac", "wav", "pcm"; "" = mp3 (OpenAI's default);
// anything else kInvalidArgument naming the six.
Result<SpeechFormat> ParseSpeechFormat(std::string_view name);
const char* SpeechFormatName(SpeechFormat format);
// The Content-Type of an answer in `format` ("audio/mpeg", ...).
const char* SpeechContentType(SpeechFormat format);

// Whether `audio` needs ffmpeg to become `format` at `speed`: everything
// but the engine's own WAV at speed 1, or its samples as `pcm` when they
// are already 16-bit mono at 24 kHz.
bool SpeechNeedsFfmpeg(const SpeechAudio& audio, SpeechFormat format, double speed);
// What ffmpeg puts after `-i` for `format` (codec, rate, -f) with the
// tempo filter for `speed` (atempo, chained where one step cannot reach).
std::vector<std::string> SpeechOutputArgs(SpeechFormat format, double speed);
// The answer without ffmpeg (SpeechNeedsFfmpeg false): the WAV, or its samples.
std::string SpeechWithoutFfmpeg(const SpeechAudio& audio, SpeechFormat format);

}  // namespace zest::engines
