#include "api/request/openai_answer.h"

#include <string>
#include <string_view>

#include "api/request/errors.h"
#include "http/sse.h"
#include "relay/json_text.h"
#include "relay/stream_chunk.h"

namespace zest::api {
namespace {

class OpenAiAnswer final : public relay::AnswerTranslator {
 public:
  std::string_view stream_content_type() const override { return "text/event-stream"; }

  std::optional<std::string> StreamEvent(relay::EngineEvent& /*event*/) override {
    return std::nullopt;
  }
  // Bytes of an event the engine did not finish go out as they came.
  std::string StreamEnd(bool /*whole*/, std::string_view pending) override {
    return std::string(pending);
  }
  std::string ErrorEvent(int /*status*/, std::string_view body) override {
    return http::SseData(body);
  }
  Result<relay::ApiAnswer> Answer(int status, std::string body, std::string_view content_type,
                                  const std::string* rename) override {
    if (rename != nullptr) body = relay::WithModelName(std::move(body), *rename);
    return relay::ApiAnswer{status, std::string(content_type), std::move(body)};
  }

  // The parsed forms, for a caller that has one: the same answer.
  std::string Chunk(const nlohmann::json& chunk) override {
    return http::SseData(relay::JsonText(chunk));
  }
  std::string End() override { return http::SseData("[DONE]"); }
  std::string StreamError(const Status& status) override {
    const ApiError e = MapStatus(status);
    return http::SseData(ErrorBody(status.message(), e.type, e.code));
  }
  Result<std::string> Whole(const nlohmann::json& answer) override {
    return relay::JsonText(answer);
  }
};

}  // namespace

std::shared_ptr<relay::AnswerTranslator> PassThroughAnswer() {
  static const std::shared_ptr<relay::AnswerTranslator> kShared = std::make_shared<OpenAiAnswer>();
  return kShared;
}

void AnswerAsOpenAi(relay::RelayRequest& request) {
  request.translator = PassThroughAnswer();
  request.send_error = static_cast<relay::ErrorSender>(&SendError);
}

}  // namespace zest::api
