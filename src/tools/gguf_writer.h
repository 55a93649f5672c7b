// GgufWriter: writes GGUF v3 files (metadata + tensors). Used to make the
// synthetic models that tests, `make run` (when no model is present) and
// benchmarks load into a real llama-server.
//
// Values are encoded as they are added and kept in memory until Write(), so
// a writer holds the whole encoded file (about 0.5 GB for the bench preset).
// Mistakes while adding (a duplicate key, dims that do not match the values)
// are remembered and returned by Write(). Not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::tools {

enum class TensorType : uint32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8 };

// general.file_type (llama_ftype) of a file whose matrices are `type`:
// 0 all F32, 1 mostly F16, 7 mostly Q8_0.
uint32_t GgufFileType(TensorType type);

// Data of every tensor starts at a multiple of this; Write() records it as
// general.alignment, so callers must not add that key themselves.
inline constexpr uint32_t kGgufAlignment = 32;

class GgufWriter {
 public:
  void AddString(const std::string& key, const std::string& value);
  void AddUint8(const std::string& key, uint8_t value);
  void AddInt8(const std::string& key, int8_t value);
  void AddUint16(const std::string& key, uint16_t value);
  void AddInt16(const std::string& key, int16_t value);
  void AddUint32(const std::string& key, uint32_t value);
  void AddInt32(const std::string& key, int32_t value);
  void AddUint64(const std::string& key, uint64_t value);
  void AddInt64(const std::string& key, int64_t value);
  void AddFloat32(const std::string& key, float value);
  void AddFloat64(const std::string& key, double value);
  void AddBool(const std::string& key, bool value);
  void AddStringArray(const std::string& key, const std::vector<std::string>& values);
  void AddFloat32Array(const std::string& key, const std::vector<float>& values);
  void AddInt32Array(const std::string& key, const std::vector<int32_t>& values);
  // `values` are F32 and are converted to `type`; dims ne[0] first (1 to 4
  // of them, their product equal to values.size()). For kQ8_0, dims[0] must
  // be a multiple of 32.
  void AddTensor(const std::string& name, const std::vector<uint64_t>& dims, TensorType type,
                 const std::vector<float>& values);
  // A tensor described by its header only: `bytes` of data (the caller sizes
  // it for `ggml_type`, any ggml type id) that Write() leaves as a hole in a
  // sparse file. Real model shapes (a 120B model) then cost a few kilobytes
  // of disk; for placement tests, never for files an engine should load.
  void AddSparseTensor(const std::string& name, const std::vector<uint64_t>& dims,
                       uint32_t ggml_type, uint64_t bytes);

  // Writes to a temporary file beside `path`, fsyncs it, then renames it into
  // place, so readers never see a partial file; on failure no temporary file
  // remains. The file is created 0600 (model files are private).
  Status Write(const std::filesystem::path& path) const;

  // Size Write() will produce, in bytes.
  uint64_t EncodedSize() const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type;     // ggml type id
    std::string data;  // encoded bytes
    uint64_t size;     // data size; for sparse tensors larger than data (empty)
  };
  bool CheckNewTensor(const std::string& name, const std::vector<uint64_t>& dims);
  // Starts a key/value: checks the key is new and writes key and type id.
  void BeginKey(const std::string& key, uint32_t type);
  void Fail(std::string message);
  std::string EncodeHeader() const;

  std::string metadata_;  // encoded key/value pairs
  uint64_t metadata_count_ = 0;
  std::vector<Tensor> tensors_;
  std::set<std::string> keys_;
  std::set<std::string> tensor_names_;
  std::string error_;  // the first mistake made while adding; empty if none
};

}  // namespace zest::tools
