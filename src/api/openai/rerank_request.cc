#include "api/openai/rerank_request.h"

#include <algorithm>

namespace zest::api::openai {

using nlohmann::json;

Result<RerankRequest> ParseRerankRequest(const json& body) {
  RerankRequest request;
  const json query = body.value("query", json());
  if (!query.is_string() || query.get_ref<const std::string&>().empty()) {
    return InvalidArgument("query must be a non-empty string");
  }
  request.query = query.get<std::string>();
  const json documents = body.value("documents", json());
  if (!documents.is_array() || documents.empty()) {
    return InvalidArgument("documents must be a non-empty list");
  }
  if (documents.size() > kMaxRerankDocuments) {
    return InvalidArgument("documents: at most " + std::to_string(kMaxRerankDocuments) +
                           " in one request");
  }
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const json& d = documents[i];
    const json text = d.is_object() ? d.value("text", json()) : d;
    if (!text.is_string()) {
      return InvalidArgument("documents[" + std::to_string(i) +
                             "] must be a string or an object with a \"text\" string");
    }
    request.documents.push_back(text.get<std::string>());
  }
  request.top_n = request.documents.size();
  if (auto top = body.find("top_n"); top != body.end() && !top->is_null()) {
    if (!top->is_number_integer() || top->get<int64_t>() < 1) {
      return InvalidArgument("top_n must be a positive integer");
    }
    request.top_n = std::min<std::size_t>(top->get<uint64_t>(), request.documents.size());
  }
  if (auto ret = body.find("return_documents"); ret != body.end() && !ret->is_null()) {
    if (!ret->is_boolean()) return InvalidArgument("return_documents must be true or false");
    request.return_documents = ret->get<bool>();
  }
  request.engine_body = {{"query", request.query}, {"documents", request.documents}};
  return request;
}

Result<json> RerankAnswer(const RerankRequest& request, const std::string& model,
                          const json& engine_answer) {
  const json results = engine_answer.is_object() ? engine_answer.value("results", json()) : json();
  std::vector<std::pair<std::size_t, double>> scored;
  std::vector<bool> seen(request.documents.size(), false);
  for (const json& r : results.is_array() ? results : json::array()) {
    const json index = r.is_object() ? r.value("index", json()) : json();
    const json score = r.is_object() ? r.value("relevance_score", json()) : json();
    if (!index.is_number_unsigned() || !score.is_number()) continue;
    const auto i = index.get<std::size_t>();
    if (i >= seen.size() || seen[i]) continue;
    seen[i] = true;
    scored.emplace_back(i, score.get<double>());
  }
  if (scored.size() != request.documents.size()) {
    return EngineFailed("the engine scored " + std::to_string(scored.size()) + " of " +
                        std::to_string(request.documents.size()) + " documents");
  }
  // Best first; equal scores keep the documents' order.
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json out = json::array();
  for (std::size_t n = 0; n < request.top_n; ++n) {
    json r = {{"index", scored[n].first}, {"relevance_score", scored[n].second}};
    if (request.return_documents) r["document"] = {{"text", request.documents[scored[n].first]}};
    out.push_back(std::move(r));
  }
  json usage = engine_answer.value("usage", json::object());
  if (!usage.is_object()) usage = json::object();
  return json{{"model", model}, {"object", "list"}, {"results", out}, {"usage", usage}};
}

}  // namespace zest::api::openai
