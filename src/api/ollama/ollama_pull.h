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

#include "api/admin/request_body.h"
#include "core/result.h"
#include "models/pull_service.h"

namespace zest::api::ollama {

// kInvalidArgument for a body without a model name.
Result<admin::PullRequest> ParseOllamaPull(const std::string& body);

std::string PullStartLine();
std::string PullProgressLine(const models::PullProgress& progress);
std::string PullSuccessLine();
std::string PullErrorLine(const Status& status);

}  // namespace zest::api::ollama
