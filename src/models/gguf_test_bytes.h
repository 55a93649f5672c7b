// Test helper: builds GGUF bytes by hand, so reader tests can craft valid and
// hostile files without depending on the writer in tools/.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace zest::models::testing {

class GgufBytes {
 public:
  template <typename T>
  GgufBytes& Pod(T value) {
    char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    bytes_.append(raw, sizeof(T));
    return *this;
  }
  GgufBytes& U32(uint32_t v) { return Pod(v); }
  GgufBytes& U64(uint64_t v) { return Pod(v); }
  GgufBytes& Str(std::string_view s) {
    U64(s.size());
    bytes_.append(s);
    return *this;
  }
  GgufBytes& Raw(std::string_view s) {
    bytes_.append(s);
    return *this;
  }
  GgufBytes& Header(uint64_t tensors, uint64_t kvs, uint32_t version = 3) {
    return Raw("GGUF").U32(version).U64(tensors).U64(kvs);
  }
  GgufBytes& PadTo(size_t alignment) {
    bytes_.append((alignment - bytes_.size() % alignment) % alignment, '\0');
    return *this;
  }
  const std::string& str() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace zest::models::testing
