// GgufWriter: writes GGUF v3 files (metadata + tensors). Used to make the
// synthetic models that tests, `make run` (when no model is present) and
// benchmarks load into a real llama-server.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::tools {

enum class TensorType : uint32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8 };

class GgufWriter {
 public:
  void AddString(const std::string& key, const std::string& value);
  void AddUint32(const std::string& key, uint32_t value);
  void AddInt32(const std::string& key, int32_t value);
  void AddFloat32(const std::string& key, float value);
  void AddBool(const std::string& key, bool value);
  void AddStringArray(const std::string& key, const std::vector<std::string>& values);
  void AddFloat32Array(const std::string& key, const std::vector<float>& values);
  void AddInt32Array(const std::string& key, const std::vector<int32_t>& values);
  // `values` are F32 and are converted to `type`; dims ne[0] first. For
  // kQ8_0, dims[0] must be a multiple of 32.
  void AddTensor(const std::string& name, const std::vector<uint64_t>& dims,
                 TensorType type, const std::vector<float>& values);

  // Writes to a temporary file beside `path`, then renames it into place, so
  // readers never see a partial file.
  Status Write(const std::filesystem::path& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    TensorType type;
    std::string data;  // encoded bytes
  };
  std::string metadata_;      // encoded key/value pairs
  uint64_t metadata_count_ = 0;
  std::vector<Tensor> tensors_;
};

}  // namespace zest::tools
