// The bodies of zest's own (admin) routes, parsed and checked in one place:
// each parser takes the raw body and gives the request, or an error whose
// `param` names the bad field. Pure, so tests/fuzz/admin_json_fuzzer.cc
// runs them on arbitrary input.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/pull_request.h"
#include "core/duration.h"
#include "core/result.h"

namespace zest::api::admin {

// A required, non-empty string field of a JSON object body.
Result<std::string> StringField(const std::string& body, const char* field);

// POST /api/v1/load: {"model", "keep_alive"?, "options"?, "replica"?}.
struct LoadRequest {
  std::string model;
  std::optional<Duration> keep_alive;     // unset: the server's default
  std::optional<nlohmann::json> options;  // per-model options (model_options_json.h)
  bool replica = false;
};
Result<LoadRequest> ParseLoadRequest(const std::string& body, std::string* param);

// POST /api/v1/add: {"name", "path", "mmproj"?}.
struct AddRequest {
  std::string name;
  std::string path;
  std::string mmproj;  // the model's vision projector; "" = none
};
Result<AddRequest> ParseAddRequest(const std::string& body, std::string* param);

// POST /api/v1/pull: {"model", "stream"?}.
Result<PullRequest> ParsePullRequest(const std::string& body, std::string* param);

}  // namespace zest::api::admin
