// Admin request bodies are small JSON objects with string fields; this reads
// one of them with a clear 400-style error when it is missing or empty.
#pragma once

#include <string>

#include "core/result.h"

namespace zest::api::admin {

Result<std::string> StringField(const std::string& body, const char* field);

}  // namespace zest::api::admin
