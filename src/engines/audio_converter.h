// AudioConverter: ffmpeg (ffmpeg.h: sandboxed, on its own threads) turns
// audio that speech engines do not decode themselves (WebM, Opus, M4A/AAC,
// ...) into 16 kHz mono 16-bit WAV, which every speech engine reads; and a
// speech-out engine's WAV into the format a client asked for
// (speech_format.h), at the speed it asked for.
//
// Thread-safe.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/ffmpeg.h"
#include "engines/speech_format.h"

namespace zest::engines {

// The longest audio converted (limits.max_audio_s): 30 minutes, 57.6 MB
// as 16 kHz mono WAV.
inline constexpr int kDefaultMaxAudioSeconds = 1800;

// The length of a 16 kHz mono 16-bit PCM WAV (what Convert writes and what
// whisper reads without resampling), bounded by its bytes: every byte after
// the data chunk's start counted as samples, whatever the chunk's declared
// size, so a reader that takes more of the file still finds no more audio.
// nullopt for any other audio, a WAV of another format included.
std::optional<double> PlainWavSeconds(std::string_view audio);

class AudioConverter {
 public:
  // `ffmpeg` is shared with the image converter (one runner, one pool of
  // threads); never null. Audio longer than `max_seconds` is refused: by
  // its header before anything is decoded, and whatever the header says,
  // decoding stops a second past it.
  explicit AudioConverter(std::shared_ptr<const Ffmpeg> ffmpeg,
                          int max_seconds = kDefaultMaxAudioSeconds)
      : ffmpeg_(std::move(ffmpeg)), max_seconds_(max_seconds) {}

  // Ok when ffmpeg is installed and can be sandboxed; else why not, with
  // how to fix it.
  Status Available() const;
  // For `zest system`: "ffmpeg (/usr/bin/ffmpeg)", or why it is not used.
  std::string Describe() const { return ffmpeg_->Describe(); }
  int max_seconds() const { return max_seconds_; }

  // Audio a speech engine may read, its length checked before the engine
  // sees it (issue 52, 2: MP3, FLAC and Ogg went to the engine unconverted,
  // and 32 MB of FLAC silence is some 44 hours): a plain WAV
  // (PlainWavSeconds) as it came when it lasts at most the limit, anything
  // else through Convert, whose decoding stops at the limit. kTooLarge,
  // Convert's errors; kNotFound/kUnavailable (Available()'s) when it needs
  // ffmpeg and has none.
  boost::asio::awaitable<Result<std::string>> Bounded(std::string audio) const;

  // `audio` as WAV, on ffmpeg's threads. kInvalidArgument when ffmpeg
  // cannot read it; kTooLarge when it lasts over the limit; kTimeout;
  // kNotFound/kUnavailable as Available() says.
  boost::asio::awaitable<Result<std::string>> Convert(std::string audio) const;
  // The same, blocking the calling thread.
  Result<std::string> ConvertBlocking(std::string_view audio) const;

  // A speech-out engine's WAV as `format` at `speed` (0.25 to 4), on
  // ffmpeg's threads. kNotFound/kUnavailable as Available() says;
  // kInvalidArgument when ffmpeg cannot encode it; kTimeout.
  boost::asio::awaitable<Result<std::string>> Encode(std::string wav, SpeechFormat format,
                                                     double speed) const;

 private:
  FfmpegJob Job() const;
  Result<std::string> Checked(Result<std::string> wav) const;
  std::string TooLong() const;

  const std::shared_ptr<const Ffmpeg> ffmpeg_;
  const int max_seconds_;
};

}  // namespace zest::engines
