// Which audio an upload holds, from its first bytes: speech engines decode
// WAV, MP3, FLAC and Ogg Vorbis themselves (whisper.cpp through miniaudio);
// anything else is refused with a clear 400 before it is queued. Pure.
#pragma once

#include <string_view>

#include "core/result.h"

namespace zest::api::openai {

// "wav", "mp3", "flac", "ogg" (Vorbis), or what else it recognises
// ("opus", "webm", "mp4"), or "" when it knows nothing of it.
std::string_view SniffAudio(std::string_view bytes);

// Ok for the formats speech engines decode; kInvalidArgument naming the
// format (or saying it is not audio) otherwise.
Status CheckAudioFormat(std::string_view bytes);

}  // namespace zest::api::openai
