// The one parser of request bodies, for every API's handlers: a JSON
// object, or a clear error in words a client can act on. Size and nesting
// are checked before this by the gateway, on every route alike
// (http::ServerOptions max_body_bytes and max_json_depth).
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/result.h"

namespace zest::api {

// kInvalidArgument when `body` is not valid JSON or not an object.
Result<nlohmann::json> ParseJsonObject(std::string_view body);

// A string member of an object in a request body: "" when it is absent or
// null (kInvalidArgument "WHERE.KEY is required" when `required`), and
// kInvalidArgument "WHERE.KEY must be a string" for another type. `where`
// names the object ("messages[2]"); "" for the body itself.
Result<std::string> StringMember(const nlohmann::json& object, const char* key,
                                 std::string_view where = "", bool required = false);

// Removes `key` from `object` (an object) and returns its value: null when
// it is absent. Parsers take what they model out of a body, and pass on
// what is left.
nlohmann::json TakeMember(nlohmann::json& object, const char* key);

// Whether `object` has no members but `allowed`.
bool OnlyMembers(const nlohmann::json& object, std::initializer_list<std::string_view> allowed);

}  // namespace zest::api
