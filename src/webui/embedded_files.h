// The web UI's files (ui/dist, built by Vite), compiled into the binary by
// embed_ui.cmake. Empty when zest was built without npm.
#pragma once

#include <cstddef>
#include <span>

namespace zest::webui {

struct EmbeddedFile {
  const char* path;  // relative to ui/dist: "index.html", "assets/index-3f9a1c.js"
  const unsigned char* data;
  std::size_t size;
};

std::span<const EmbeddedFile> EmbeddedUiFiles();

}  // namespace zest::webui
