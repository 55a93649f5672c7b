// Ollama's POST /api/pull in zest's terms: the request ({"model"} or the
// older {"name"}, "stream" true by default, "insecure" accepted) and the
// progress as Ollama streams it, one JSON object per line:
//   {"status":"pulling manifest"}
//   {"status":"pulling FILE","digest":FILE,"total":N,"completed":M}
//   {"status":"verifying sha256 digest"}
//   {"status":"success"}
// or a last {"error":"..."} line. zest pulls from Hugging Face (a catalog
// name or org/repo:QUANT), so `digest` names the file being fetched rather
// than an Ollama layer. Pure.
#pragma once

#include <string>

#include "api/pull_route.h"
#include "core/result.h"
#include "models/pull_service.h"

namespace zest::api::ollama {

// kInvalidArgument for a body without a model name.
Result<PullRequest> ParseOllamaPull(const std::string& body);

std::string PullStartLine();
std::string PullProgressLine(const models::PullProgress& progress);
std::string PullSuccessLine();
std::string PullErrorLine(const Status& status);

// Ollama's pull answers, for the shared PullRunner (api/pull_route.h).
class OllamaPullWire : public PullWire {
 public:
  Result<PullRequest> Parse(const std::string& body, std::string* param) const override;
  boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                         const std::string& param) const override;
  std::string_view stream_content_type() const override { return "application/x-ndjson"; }
  std::string StartLine() const override { return PullStartLine(); }
  std::string ProgressLine(const models::PullProgress& progress) const override {
    return PullProgressLine(progress);
  }
  std::string EndLine(const Result<models::PullResult>& result) const override {
    return result.ok() ? PullSuccessLine() : PullErrorLine(result.status());
  }
  std::string WholeAnswer(const models::PullResult&) const override { return PullSuccessLine(); }
};

}  // namespace zest::api::ollama
