// The audio a chat request carries (OpenAI input_audio parts, for models
// whose projector has an audio encoder), measured before the request is
// admitted, as uploads to /v1/audio/transcriptions are (issue 52, 2): the
// engine (libmtmd) decodes WAV and MP3 itself, so a few KB of MP3 could
// hold hours of audio. A plain 16 kHz mono 16-bit WAV is measured by its
// size; anything else is decoded by ffmpeg in its sandbox under
// limits.max_audio_s and sent on as that WAV (engines/audio_converter.h).
// Without ffmpeg only a plain WAV is taken.
//
// Thread-safe (no state of its own).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>

#include "core/result.h"
#include "engines/audio_converter.h"
#include "engines/chat_request.h"

namespace zest::api {

// Each input_audio part of `request` measured and, when it is not a plain
// WAV, replaced by ffmpeg's WAV of it. kInvalidArgument (not base64, not
// audio, needs ffmpeg) or kTooLarge naming the part ("audio 2 ..."), with
// `*param` = "messages". `converter` may be null: only plain WAVs then.
boost::asio::awaitable<Status> PrepareChatAudio(engines::ChatRequest& request,
                                                const engines::AudioConverter* converter,
                                                std::string* param);

// The input_audio parts in `request`.
int CountAudio(const engines::ChatRequest& request);

}  // namespace zest::api
