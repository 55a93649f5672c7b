#include "api/openai/speech_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/json_body.h"

namespace zest::api::openai {

const std::vector<std::string>& SpeechVoices() {
  static const std::vector<std::string> kVoices = {"alloy", "ash",     "ballad", "coral",
                                                   "echo",  "fable",   "onyx",   "nova",
                                                   "sage",  "shimmer", "verse"};
  return kVoices;
}

size_t Utf8Length(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

namespace {

Status ReadVoice(const nlohmann::json& body, SpeechRequest& out) {
  // OpenAI also takes {"id": "voice_..."} for custom voices: none here.
  ZEST_ASSIGN_OR_RETURN(std::string voice, StringMember(body, "voice"));
  if (voice.empty()) return Status::Ok();
  const std::vector<std::string>& known = SpeechVoices();
  if (std::find(known.begin(), known.end(), voice) == known.end()) {
    return InvalidArgument("unknown voice '" + voice +
                           "': one of alloy, ash, ballad, coral, echo, fable, onyx, nova, sage, "
                           "shimmer, verse (GET /v1/audio/voices)");
  }
  out.voice = std::move(voice);
  return Status::Ok();
}

Status ReadSpeed(const nlohmann::json& body, SpeechRequest& out) {
  auto it = body.find("speed");
  if (it == body.end() || it->is_null()) return Status::Ok();
  if (!it->is_number()) return InvalidArgument("speed must be a number from 0.25 to 4");
  out.speed = it->get<double>();
  if (!(out.speed >= kMinSpeechSpeed && out.speed <= kMaxSpeechSpeed)) {
    return InvalidArgument("speed must be a number from 0.25 to 4");
  }
  return Status::Ok();
}

Status ReadStream(const nlohmann::json& body, SpeechRequest& out) {
  ZEST_ASSIGN_OR_RETURN(std::string stream, StringMember(body, "stream_format"));
  if (stream.empty()) return Status::Ok();
  if (stream == "audio") {
    out.stream = SpeechStream::kAudio;
  } else if (stream == "sse") {
    out.stream = SpeechStream::kSse;
  } else {
    return InvalidArgument("stream_format must be audio or sse");
  }
  return Status::Ok();
}

}  // namespace

Result<SpeechRequest> ParseSpeechRequest(std::string_view text, size_t max_chars,
                                         std::string* param) {
  param->clear();
  ZEST_ASSIGN_OR_RETURN(nlohmann::json body, ParseJsonObject(text));
  SpeechRequest out;
  *param = "model";
  ZEST_ASSIGN_OR_RETURN(out.model, StringMember(body, "model", "", /*required=*/true));
  if (out.model.empty()) return InvalidArgument("model is required");
  *param = "input";
  ZEST_ASSIGN_OR_RETURN(out.input, StringMember(body, "input", "", /*required=*/true));
  if (out.input.find_first_not_of(" \t\r\n") == std::string::npos) {
    return InvalidArgument("input is empty: give the text to speak");
  }
  if (const size_t chars = Utf8Length(out.input); chars > max_chars) {
    return InvalidArgument("input is " + std::to_string(chars) + " characters; at most " +
                           std::to_string(max_chars) + " (limits.max_speech_chars)");
  }
  *param = "voice";
  ZEST_RETURN_IF_ERROR(ReadVoice(body, out));
  *param = "instructions";
  ZEST_ASSIGN_OR_RETURN(out.instructions, StringMember(body, "instructions"));
  *param = "speed";
  ZEST_RETURN_IF_ERROR(ReadSpeed(body, out));
  *param = "response_format";
  ZEST_ASSIGN_OR_RETURN(std::string format, StringMember(body, "response_format"));
  ZEST_ASSIGN_OR_RETURN(out.format, engines::ParseSpeechFormat(format));
  *param = "stream_format";
  ZEST_RETURN_IF_ERROR(ReadStream(body, out));
  *param = "priority";
  ZEST_ASSIGN_OR_RETURN(out.priority, StringMember(body, "priority"));
  param->clear();
  return out;
}

}  // namespace zest::api::openai
