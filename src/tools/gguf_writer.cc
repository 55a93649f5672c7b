// GGUF v3 encoding (little endian): "GGUF", u32 version, u64 tensor_count,
// u64 kv_count, key/values, tensor infos, padding to the alignment, data.
#include "tools/gguf_writer.h"

#include <cstring>
#include <span>

#include "tools/atomic_file.h"
#include "tools/tensor_encoding.h"

namespace zest::tools {
namespace {

// GGUF metadata value type ids.
enum : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

constexpr uint32_t kVersion = 3;
constexpr uint32_t kMaxDims = 4;

template <typename T>
void Put(T value, std::string& out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void PutString(const std::string& s, std::string& out) {
  Put<uint64_t>(s.size(), out);
  out.append(s);
}

uint64_t PaddingFor(uint64_t size) {
  return (kGgufAlignment - size % kGgufAlignment) % kGgufAlignment;
}

}  // namespace

uint32_t GgufFileType(TensorType type) {
  switch (type) {
    case TensorType::kF16:
      return 1;
    case TensorType::kQ8_0:
      return 7;
    default:
      return 0;
  }
}

void GgufWriter::Fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

void GgufWriter::BeginKey(const std::string& key, uint32_t type) {
  if (key == "general.alignment") Fail("general.alignment is written by GgufWriter itself");
  if (!keys_.insert(key).second) Fail("duplicate metadata key '" + key + "'");
  PutString(key, metadata_);
  Put<uint32_t>(type, metadata_);
  ++metadata_count_;
}

void GgufWriter::AddString(const std::string& key, const std::string& value) {
  BeginKey(key, kString);
  PutString(value, metadata_);
}
void GgufWriter::AddUint8(const std::string& key, uint8_t value) {
  BeginKey(key, kUint8);
  Put(value, metadata_);
}
void GgufWriter::AddInt8(const std::string& key, int8_t value) {
  BeginKey(key, kInt8);
  Put(value, metadata_);
}
void GgufWriter::AddUint16(const std::string& key, uint16_t value) {
  BeginKey(key, kUint16);
  Put(value, metadata_);
}
void GgufWriter::AddInt16(const std::string& key, int16_t value) {
  BeginKey(key, kInt16);
  Put(value, metadata_);
}
void GgufWriter::AddUint32(const std::string& key, uint32_t value) {
  BeginKey(key, kUint32);
  Put(value, metadata_);
}
void GgufWriter::AddInt32(const std::string& key, int32_t value) {
  BeginKey(key, kInt32);
  Put(value, metadata_);
}
void GgufWriter::AddUint64(const std::string& key, uint64_t value) {
  BeginKey(key, kUint64);
  Put(value, metadata_);
}
void GgufWriter::AddInt64(const std::string& key, int64_t value) {
  BeginKey(key, kInt64);
  Put(value, metadata_);
}
void GgufWriter::AddFloat32(const std::string& key, float value) {
  BeginKey(key, kFloat32);
  Put(value, metadata_);
}
void GgufWriter::AddFloat64(const std::string& key, double value) {
  BeginKey(key, kFloat64);
  Put(value, metadata_);
}
void GgufWriter::AddBool(const std::string& key, bool value) {
  BeginKey(key, kBool);
  Put<uint8_t>(value ? 1 : 0, metadata_);
}

void GgufWriter::AddStringArray(const std::string& key, const std::vector<std::string>& values) {
  BeginKey(key, kArray);
  Put<uint32_t>(kString, metadata_);
  Put<uint64_t>(values.size(), metadata_);
  for (const std::string& v : values) PutString(v, metadata_);
}

void GgufWriter::AddFloat32Array(const std::string& key, const std::vector<float>& values) {
  BeginKey(key, kArray);
  Put<uint32_t>(kFloat32, metadata_);
  Put<uint64_t>(values.size(), metadata_);
  for (float v : values) Put(v, metadata_);
}

void GgufWriter::AddInt32Array(const std::string& key, const std::vector<int32_t>& values) {
  BeginKey(key, kArray);
  Put<uint32_t>(kInt32, metadata_);
  Put<uint64_t>(values.size(), metadata_);
  for (int32_t v : values) Put(v, metadata_);
}

bool GgufWriter::CheckNewTensor(const std::string& name, const std::vector<uint64_t>& dims) {
  if (!tensor_names_.insert(name).second) {
    Fail("duplicate tensor '" + name + "'");
    return false;
  }
  if (dims.empty() || dims.size() > kMaxDims) {
    Fail("tensor '" + name + "' needs 1 to 4 dims");
    return false;
  }
  return true;
}

void GgufWriter::AddTensor(const std::string& name, const std::vector<uint64_t>& dims,
                           TensorType type, const std::vector<float>& values) {
  if (!CheckNewTensor(name, dims)) return;
  uint64_t elements = 1;
  for (uint64_t d : dims) elements *= d;
  if (elements != values.size()) {
    return Fail("tensor '" + name + "' has " + std::to_string(values.size()) + " values for " +
                std::to_string(elements) + " elements");
  }
  Tensor tensor{name, dims, static_cast<uint32_t>(type), {}, 0};
  switch (type) {
    case TensorType::kF32:
      AppendF32(values, tensor.data);
      break;
    case TensorType::kF16:
      AppendF16(values, tensor.data);
      break;
    case TensorType::kQ8_0:
      if (dims[0] % kQ8_0BlockSize != 0) {
        return Fail("tensor '" + name + "': Q8_0 needs ne[0] to be a multiple of 32");
      }
      AppendQ8_0(values, tensor.data);
      break;
    default:
      return Fail("tensor '" + name + "' has an unsupported type");
  }
  tensor.size = tensor.data.size();
  tensors_.push_back(std::move(tensor));
}

void GgufWriter::AddSparseTensor(const std::string& name, const std::vector<uint64_t>& dims,
                                 uint32_t ggml_type, uint64_t bytes) {
  if (!CheckNewTensor(name, dims)) return;
  tensors_.push_back({name, dims, ggml_type, {}, bytes});
}

std::string GgufWriter::EncodeHeader() const {
  std::string header = "GGUF";
  Put<uint32_t>(kVersion, header);
  Put<uint64_t>(tensors_.size(), header);
  Put<uint64_t>(metadata_count_ + 1, header);  // + general.alignment
  header += metadata_;
  PutString("general.alignment", header);
  Put<uint32_t>(kUint32, header);
  Put<uint32_t>(kGgufAlignment, header);
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    PutString(t.name, header);
    Put<uint32_t>(static_cast<uint32_t>(t.dims.size()), header);
    for (uint64_t d : t.dims) Put<uint64_t>(d, header);
    Put<uint32_t>(t.type, header);
    Put<uint64_t>(offset, header);
    offset += t.size + PaddingFor(t.size);
  }
  header.append(PaddingFor(header.size()), '\0');
  return header;
}

uint64_t GgufWriter::EncodedSize() const {
  uint64_t size = EncodeHeader().size();
  for (size_t i = 0; i < tensors_.size(); ++i) {
    size += tensors_[i].size;
    if (i + 1 < tensors_.size()) size += PaddingFor(tensors_[i].size);
  }
  return size;
}

Status GgufWriter::Write(const std::filesystem::path& path) const {
  if (!error_.empty()) return InvalidArgument(error_);
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  ZEST_RETURN_IF_ERROR(file->Append(EncodeHeader()));
  static const std::string kZeros(kGgufAlignment, '\0');
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    ZEST_RETURN_IF_ERROR(file->Append(t.data));
    if (t.size > t.data.size()) ZEST_RETURN_IF_ERROR(file->Skip(t.size - t.data.size()));
    // No padding after the last tensor: the file ends where its data ends,
    // so any truncation is detectable from the header alone.
    if (i + 1 < tensors_.size()) {
      ZEST_RETURN_IF_ERROR(file->Append(std::string_view(kZeros).substr(0, PaddingFor(t.size))));
    }
  }
  return file->Commit();
}

}  // namespace zest::tools
