// Which audio an upload holds, from its first bytes: speech engines decode
// WAV, MP3, FLAC and Ogg Vorbis themselves (whisper.cpp through miniaudio);
// anything else is converted with ffmpeg where it is installed
// (engines/audio_converter.h), else refused with a clear 400 before it is
// queued. Pure.
#pragma once

#include <string_view>

#include "core/result.h"

namespace zest::api::openai {

// "wav", "mp3", "flac", "ogg" (Vorbis), or what else it recognises
// ("opus", "webm", "mp4"), or "" when it knows nothing of it.
std::string_view SniffAudio(std::string_view bytes);

// Whether speech engines decode it themselves (no conversion needed).
bool DecodedByEngines(std::string_view bytes);

// Ok for the formats speech engines decode; kInvalidArgument naming the
// format (or saying it is not audio) otherwise, with the ffmpeg command
// that converts it.
Status CheckAudioFormat(std::string_view bytes);

}  // namespace zest::api::openai
