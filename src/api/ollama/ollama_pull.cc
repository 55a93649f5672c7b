#include "api/ollama/ollama_pull.h"

#include <nlohmann/json.hpp>

#include "api/json_body.h"
#include "api/ollama/ollama_models.h"
#include "api/request/errors.h"
#include "relay/json_text.h"

namespace zest::api::ollama {

using nlohmann::json;

Result<PullRequest> ParseOllamaPull(const std::string& text) {
  ZEST_ASSIGN_OR_RETURN(json body, ParseJsonObject(text));
  const json name = body.contains("model") ? body["model"] : body.value("name", json());
  if (!name.is_string() || name.get<std::string>().empty()) {
    return InvalidArgument("model is required");
  }
  PullRequest request;
  request.model = ZestName(name.get<std::string>());
  if (auto stream = body.find("stream"); stream != body.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return InvalidArgument("stream must be true or false");
    request.stream = stream->get<bool>();
  }
  return request;
}

std::string PullStartLine() { return relay::JsonText(json{{"status", "pulling manifest"}}) + "\n"; }

std::string PullProgressLine(const models::PullProgress& p) {
  if (p.file.empty() || p.status == "resolving") return PullStartLine();
  if (p.status == "verifying")
    return relay::JsonText(json{{"status", "verifying sha256 digest"}}) + "\n";
  return relay::JsonText(json{{"status", "pulling " + p.file},
                              {"digest", p.file},
                              {"total", p.total},
                              {"completed", p.completed}}) +
         "\n";
}

std::string PullSuccessLine() { return relay::JsonText(json{{"status", "success"}}) + "\n"; }

std::string PullErrorLine(const Status& status) {
  return relay::JsonText(json{{"error", status.message()}}) + "\n";
}

Result<PullRequest> OllamaPullWire::Parse(const std::string& body, std::string* param) const {
  *param = "model";
  return ParseOllamaPull(body);
}

boost::asio::awaitable<void> OllamaPullWire::SendError(http::ResponseWriter& writer,
                                                       const Status& status,
                                                       const std::string&) const {
  co_await writer.Send(MapStatus(status).http_status, "application/json", PullErrorLine(status));
}

}  // namespace zest::api::ollama
