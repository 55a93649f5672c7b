// Which audio an upload holds, from its first bytes. Every upload's length
// is checked before a speech engine sees it (engines/audio_converter.h's
// Bounded): a plain 16 kHz mono 16-bit WAV by its size, anything else by
// ffmpeg decoding it under the limit. Where ffmpeg is missing only a plain
// WAV is taken, and anything else gets a clear 400 before it is queued.
// Pure.
#pragma once

#include <string_view>

#include "core/result.h"

namespace zest::api::openai {

// "wav", "mp3", "flac", "ogg" (Vorbis), or what else it recognises
// ("opus", "webm", "mp4"), or "" when it knows nothing of it.
std::string_view SniffAudio(std::string_view bytes);

// Whether speech engines could decode it themselves (WAV, MP3, FLAC, Ogg
// Vorbis); zest still measures it first.
bool DecodedByEngines(std::string_view bytes);

// Where zest has no ffmpeg: Ok for a plain WAV (its length is known from
// its size); kInvalidArgument naming the format (or saying it is not
// audio) otherwise, with the ffmpeg command that makes a plain WAV of it.
Status CheckAudioFormat(std::string_view bytes);

}  // namespace zest::api::openai
