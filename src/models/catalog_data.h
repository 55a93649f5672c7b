// The catalog's JSON text (catalog/models.json), compiled into zest by a
// CMake-generated source file so the binary needs no source tree at run time.
#pragma once

#include <string_view>

namespace zest::models {

std::string_view BuiltinCatalogJson();

}  // namespace zest::models
