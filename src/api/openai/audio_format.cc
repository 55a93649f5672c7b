#include "api/openai/audio_format.h"

#include <string>

#include "engines/audio_converter.h"

namespace zest::api::openai {

std::string_view SniffAudio(std::string_view b) {
  auto at = [&](std::size_t offset, std::string_view magic) {
    return b.size() >= offset + magic.size() && b.substr(offset, magic.size()) == magic;
  };
  if (at(0, "RIFF") && at(8, "WAVE")) return "wav";
  if (at(0, "fLaC")) return "flac";
  if (at(0, "OggS")) {
    // The first page's packet names the codec.
    std::string_view head = b.substr(0, 128);
    if (head.find("OpusHead") != std::string_view::npos) return "opus";
    if (head.find("vorbis") != std::string_view::npos) return "ogg";
    return "ogg-other";
  }
  if (at(0, "ID3")) return "mp3";
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0xFF &&
      (static_cast<unsigned char>(b[1]) & 0xE6) == 0xE2) {
    return "mp3";  // an MPEG audio layer III frame sync
  }
  if (at(0, "\x1A\x45\xDF\xA3")) return "webm";
  if (at(4, "ftyp")) return "mp4";
  return "";
}

bool DecodedByEngines(std::string_view bytes) {
  std::string_view format = SniffAudio(bytes);
  return format == "wav" || format == "mp3" || format == "flac" || format == "ogg";
}

Status CheckAudioFormat(std::string_view bytes) {
  if (engines::PlainWavSeconds(bytes)) return Status::Ok();
  std::string_view format = SniffAudio(bytes);
  if (format.empty()) {
    return InvalidArgument(
        "the file is not audio zest can read: send WAV, MP3, FLAC or Ogg Vorbis");
  }
  return InvalidArgument(
      "audio in " + std::string(format) +
      " needs ffmpeg, which zest uses to check its length and convert it, and this server has "
      "none: send 16 kHz mono 16-bit WAV (for example `ffmpeg -i in." +
      std::string(format) + " -ar 16000 -ac 1 -c:a pcm_s16le out.wav`)");
}

}  // namespace zest::api::openai
