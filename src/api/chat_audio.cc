#include "api/chat_audio.h"

#include <optional>

#include "api/openai/audio_format.h"
#include "core/base64.h"

namespace zest::api {
namespace {

using engines::ContentPart;
using nlohmann::json;

bool IsAudio(const ContentPart& part) {
  return part.type == ContentPart::Type::kOther && part.extra.is_object() &&
         part.extra.value("type", json()) == "input_audio" &&
         part.extra.value("input_audio", json()).is_object();
}

// Where `converter` cannot run: a plain WAV within the limit, else why not.
Status WithoutFfmpeg(const std::string& bytes, int max_seconds, const std::string& where) {
  if (std::optional<double> seconds = engines::PlainWavSeconds(bytes)) {
    if (*seconds <= max_seconds) return Status::Ok();
    return Status(
        ErrorCode::kTooLarge,
        where + " is too long: at most " + std::to_string(max_seconds) + " s (limits.max_audio_s)");
  }
  Status refused = openai::CheckAudioFormat(bytes);
  return Status(refused.code(), where + ": " + refused.message());
}

boost::asio::awaitable<Status> PrepareOne(ContentPart& part, int index,
                                          const engines::AudioConverter* converter) {
  const std::string where = "audio " + std::to_string(index);
  json& audio = part.extra["input_audio"];
  std::optional<std::string> bytes = Base64Decode(audio["data"].get<std::string>());
  if (!bytes) co_return InvalidArgument(where + ": input_audio.data is not valid base64");
  const int max_seconds =
      converter != nullptr ? converter->max_seconds() : engines::kDefaultMaxAudioSeconds;
  const bool plain = engines::PlainWavSeconds(*bytes).has_value();
  if (converter == nullptr || (!plain && !converter->Available().ok())) {
    co_return WithoutFfmpeg(*bytes, max_seconds, where);
  }
  std::string input = std::move(*bytes);  // named: no temporaries in co_await
  Result<std::string> wav = co_await converter->Bounded(std::move(input));
  if (!wav.ok()) co_return Status(wav.status().code(), where + ": " + wav.status().message());
  if (!plain) {
    audio["data"] = Base64Encode(*wav);
    audio["format"] = "wav";
  }
  co_return Status::Ok();
}

}  // namespace

int CountAudio(const engines::ChatRequest& request) {
  int count = 0;
  for (const engines::Message& m : request.messages) {
    for (const ContentPart& p : m.parts) count += IsAudio(p) ? 1 : 0;
  }
  return count;
}

boost::asio::awaitable<Status> PrepareChatAudio(engines::ChatRequest& request,
                                                const engines::AudioConverter* converter,
                                                std::string* param) {
  int index = 0;
  for (engines::Message& m : request.messages) {
    for (ContentPart& p : m.parts) {
      if (!IsAudio(p)) continue;
      *param = "messages";
      Status ready = co_await PrepareOne(p, ++index, converter);
      if (!ready.ok()) co_return ready;
    }
  }
  co_return Status::Ok();
}

}  // namespace zest::api
