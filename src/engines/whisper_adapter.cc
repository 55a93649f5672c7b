#include "engines/whisper_adapter.h"

#include <unistd.h>

#include <array>
#include <nlohmann/json.hpp>

#include "engines/bridged_command.h"
#include "http/multipart.h"

namespace zest::engines {

Result<LaunchCommand> WhisperAdapter::Command(const LaunchSpec& spec) const {
  if (!setup_.located.ok()) return Unavailable(setup_.located.status().message());
  ZEST_RETURN_IF_ERROR(CheckExtraArgs(spec.extra_args, spec.model_roots));
  std::vector<std::string> args = {"whisper-server", "--host", "127.0.0.1", "--port",
                                   std::to_string(kWhisperPort), "-m", spec.model_file.string(),
                                   // OpenAI detects the language when none is given.
                                   "-l", "auto",
                                   // verbose_json without the extra detection pass.
                                   "--no-language-probabilities"};
  if (spec.threads > 0) args.insert(args.end(), {"-t", std::to_string(spec.threads)});
  return BridgedCommand(*setup_.located, spec, kWhisperPort, args, setup_.self_exe);
}

namespace {

// The languages whisper knows (its tokenizer's language tokens), by ISO
// 639-1 code where there is one. whisper-server takes an unknown code
// without complaint and transcribes badly, so zest checks first.
constexpr std::array<const char*, 100> kLanguages = {
    "en", "zh", "de", "es",  "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv",
    "it", "id", "hi", "fi",  "vi", "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no",
    "th", "ur", "hr", "bg",  "lt", "la", "mi", "ml", "cy", "sk", "te", "fa", "lv", "bn", "sr",
    "az", "sl", "kn", "et",  "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
    "gl", "mr", "pa", "si",  "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu",
    "am", "yi", "lo", "uz",  "fo", "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl",
    "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue"};

bool KnownLanguage(const std::string& code) {
  for (const char* known : kLanguages) {
    if (code == known) return true;
  }
  return false;
}

}  // namespace

Result<EngineCall> WhisperAdapter::TranscriptionCall(const TranscriptionJob& job) const {
  if (!job.language.empty() && !KnownLanguage(job.language)) {
    return InvalidArgument("unknown language '" + job.language +
                           "': give an ISO 639-1 code whisper knows (en, de, fr, ...)");
  }
  std::vector<http::FormPart> form = {{"file", job.filename.empty() ? "audio" : job.filename,
                                       "application/octet-stream", job.audio},
                                      {"response_format", "", "", "verbose_json"},
                                      {"no_language_probabilities", "", "", "true"}};
  if (!job.language.empty()) form.push_back({"language", "", "", job.language});
  if (!job.prompt.empty()) form.push_back({"prompt", "", "", job.prompt});
  if (job.temperature) form.push_back({"temperature", "", "", std::to_string(*job.temperature)});
  if (job.translate) form.push_back({"translate", "", "", "true"});
  // A boundary of its own for each request: the audio is a client's bytes,
  // and with a constant one a WAV could end its part and add fields
  // (response_format) to the engine's form.
  const std::string boundary = http::NewFormBoundary();
  ZEST_ASSIGN_OR_RETURN(std::string body, http::WriteForm(form, boundary));
  return EngineCall{"/inference", http::FormContentType(boundary), std::move(body)};
}

namespace {

// A Transcript from whisper-server's verbose_json; throws
// nlohmann::json::exception on a field of an unexpected type.
Transcript FromVerboseJson(const nlohmann::json& j) {
  Transcript t;
  t.language = j.value("language", "");
  t.duration = j.value("duration", 0.0);
  for (const auto& s : j.value("segments", nlohmann::json::array())) {
    TranscriptSegment segment;
    segment.id = s.value("id", static_cast<int>(t.segments.size()));
    segment.start = s.value("start", 0.0);
    segment.end = s.value("end", 0.0);
    segment.text = s.value("text", "");
    segment.temperature = s.value("temperature", 0.0);
    segment.avg_logprob = s.value("avg_logprob", 0.0);
    segment.no_speech_prob = s.value("no_speech_prob", 0.0);
    for (const auto& token : s.value("tokens", nlohmann::json::array())) {
      if (token.is_number_integer()) segment.tokens.push_back(token.get<int>());
    }
    for (const auto& w : s.value("words", nlohmann::json::array())) {
      t.words.push_back({w.value("word", ""), w.value("start", 0.0), w.value("end", 0.0)});
    }
    t.segments.push_back(std::move(segment));
  }
  // Each segment's text starts with a space (whisper's tokens do); the
  // whole is trimmed, as OpenAI's is.
  std::string text;
  for (const auto& segment : t.segments) text += segment.text;
  std::size_t first = text.find_first_not_of(" \n");
  std::size_t last = text.find_last_not_of(" \n");
  t.text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  return t;
}

}  // namespace

Result<Transcript> WhisperAdapter::ReadTranscript(int status, std::string_view body) const {
  // whisper-server answers every bad upload (not audio, an unsupported
  // codec, an empty file) with 400 "Invalid request", as plain text.
  if (status == 400) {
    return InvalidArgument(
        "the audio file could not be decoded: send WAV, MP3, FLAC or Ogg Vorbis audio");
  }
  if (status != 200) {
    return EngineFailed("whisper-server answered " + std::to_string(status) + ": " +
                        std::string(body.substr(0, 200)));
  }
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return EngineFailed("whisper-server's answer is not JSON");
  // whisper-server's own answer; a field of another type than it writes
  // is an engine failure, not a crash.
  try {
    return FromVerboseJson(j);
  } catch (const nlohmann::json::exception& e) {
    return EngineFailed(std::string("whisper-server's answer is not verbose_json: ") + e.what());
  }
}

EngineDescription WhisperAdapter::Describe(const Result<EngineInfo>* probed) const {
  EngineDescription d = EngineAdapter::Describe(probed);
  DescribeLocation(setup_.located, d);
  if (setup_.located.ok()) d.sandbox += "; behind zest's engine bridge";
  d.notes = {setup_.converts_audio
                 ? "audio it decodes: WAV, MP3, FLAC, Ogg Vorbis; zest converts other formats "
                   "(WebM, Opus, M4A...) with ffmpeg"
                 : "audio it decodes: WAV, MP3, FLAC, Ogg Vorbis; other formats are refused "
                   "(install ffmpeg and zest converts them)"};
  return d;
}

std::optional<std::string> WhisperAdapter::PathFor(Capability capability) const {
  if (capability == Capability::kTranscription) return "/inference";
  return std::nullopt;
}

}  // namespace zest::engines
