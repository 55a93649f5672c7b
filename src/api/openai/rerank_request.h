// POST /v1/rerank in the shape Jina's and Cohere's rerank APIs share, which
// RAG apps and their libraries send: {"model", "query", "documents"
// (strings, or objects with "text"), "top_n", "return_documents"} →
// {"model", "object": "list", "results": [{"index", "relevance_score",
// "document": {"text"} when asked}] best first, "usage"}. The engine
// scores each document against the query (llama-server's /v1/rerank, on a
// model with rank pooling, run with --reranking); zest checks the request,
// and orders and cuts the answer itself, so the contract does not depend
// on the engine's version.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::api::openai {

// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct RerankRequest {
  std::string query;
  std::vector<std::string> documents;
  std::size_t top_n = 0;  // how many results (all when the request names none)
  bool return_documents = false;
  nlohmann::json engine_body;  // {"query", "documents"} for the engine
};

// At most this many documents in one request.
inline constexpr std::size_t kMaxRerankDocuments = 1000;

// kInvalidArgument naming the field for a missing or empty query, no
// documents, more than kMaxRerankDocuments, a document that is neither a
// string nor {"text": string}, a top_n that is not a positive integer.
Result<RerankRequest> ParseRerankRequest(const nlohmann::json& body);

// The engine's answer ({"results": [{"index", "relevance_score"}], "usage"})
// as the client's: every document scored once, best first, top_n of them,
// with the documents' text when asked, and `model` as the client named it.
// kEngineFailed for an answer without a score for each document.
Result<nlohmann::json> RerankAnswer(const RerankRequest& request, const std::string& model,
                                    const nlohmann::json& engine_answer);

}  // namespace zest::api::openai
