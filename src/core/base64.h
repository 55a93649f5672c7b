// Base64 (RFC 4648, the standard alphabet with '=' padding), as OpenAI's
// `b64_json` and engines' image answers carry bytes. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zest {

std::string Base64Encode(std::string_view bytes);

// nullopt for anything but canonical base64: a character outside the
// alphabet, whitespace, a length that is not a multiple of 4, or padding
// anywhere but at the end.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace zest
