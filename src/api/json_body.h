// The one parser of request bodies, for every API's handlers: a JSON
// object, or a clear error in words a client can act on. Size and nesting
// are checked before this by the gateway, on every route alike
// (http::ServerOptions max_body_bytes and max_json_depth).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/result.h"

namespace zest::api {

// kInvalidArgument when `body` is not valid JSON or not an object.
Result<nlohmann::json> ParseJsonObject(std::string_view body);

}  // namespace zest::api
