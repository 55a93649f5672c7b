// Fuzzes the GGUF reader (models/gguf_reader: ParseGguf over a memory
// ByteSource) and the summary zest derives from a parsed header.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "models/gguf_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zest::models;
  auto file = ParseGguf(std::string_view(reinterpret_cast<const char*>(data), size));
  if (file.ok()) (void)Describe(*file);
  return 0;
}
