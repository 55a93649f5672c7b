// Parses the GGUF header: magic, version, counts, key/values, tensor infos.
// Layout (little endian): "GGUF" u32 version, u64 tensor_count, u64 kv_count,
// kv_count × {string key, u32 type, value}, tensor_count × {string name,
// u32 n_dims, u64 ne[n_dims], u32 ggml type, u64 offset}, padding to the
// alignment, tensor data. Strings are u64 length + bytes (no terminator).
#include "models/gguf_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>

#include "models/byte_source.h"

namespace zest::models {
namespace {

static_assert(std::endian::native == std::endian::little,
              "GGUF is little endian; this reader assumes a little-endian host");

constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint32_t kDefaultAlignment = 32;

// Smallest encodings, used to reject counts the remaining bytes cannot hold
// before anything is allocated for them.
constexpr uint64_t kMinKeyValueBytes = 8 + 4 + 1;            // empty key, type, u8
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;  // empty name, 1 dim

// Size of a scalar value type; 0 for strings, arrays and unknown ids.
uint64_t ScalarSize(uint32_t type) {
  switch (type) {
    case kGgufUint8:
    case kGgufInt8:
    case kGgufBool:
      return 1;
    case kGgufUint16:
    case kGgufInt16:
      return 2;
    case kGgufUint32:
    case kGgufInt32:
    case kGgufFloat32:
      return 4;
    case kGgufUint64:
    case kGgufInt64:
    case kGgufFloat64:
      return 8;
    default:
      return 0;
  }
}

class GgufParser {
 public:
  explicit GgufParser(ByteSource& source) : source_(source) {}

  Result<GgufFile> Parse();

 private:
  template <typename T>
  Status ReadPod(T& out) {
    return source_.Read(&out, sizeof(T));
  }
  Status ReadString(std::string& out, uint64_t max_length, const char* what);
  Status ReadScalar(uint32_t type, GgufValue& out);
  Status ReadArray(GgufValue& out);
  Status ReadValue(uint32_t type, GgufValue& out);
  Status ReadKeyValue(GgufFile& file);
  Status ReadTensorInfo(GgufTensorInfo& info);
  Status CheckCount(uint64_t count, uint64_t limit, uint64_t min_bytes, const char* what) const;
  Status ReadAlignment(GgufFile& file) const;
  Status CheckTensorExtents(const GgufFile& file) const;

  ByteSource& source_;
  uint64_t kept_string_bytes_ = 0;  // against kMaxGgufStringBytes
};

Status GgufParser::CheckCount(uint64_t count, uint64_t limit, uint64_t min_bytes,
                              const char* what) const {
  if (count > limit) {
    return InvalidArgument(std::string("GGUF declares too many ") + what + ": " +
                           std::to_string(count));
  }
  // count <= limit (< 2^25) and min_bytes is small, so this cannot overflow.
  if (count * min_bytes > source_.Remaining()) {
    return InvalidArgument(std::string("GGUF declares ") + std::to_string(count) + " " + what +
                           ", more than the file can hold");
  }
  return Status::Ok();
}

Status GgufParser::ReadString(std::string& out, uint64_t max_length, const char* what) {
  uint64_t length = 0;
  ZEST_RETURN_IF_ERROR(ReadPod(length));
  if (length > max_length || length > source_.Remaining()) {
    return InvalidArgument(std::string("GGUF ") + what + " length " + std::to_string(length) +
                           " exceeds the remaining " + std::to_string(source_.Remaining()) +
                           " bytes or the limit");
  }
  kept_string_bytes_ += sizeof(std::string) + length;
  if (kept_string_bytes_ > kMaxGgufStringBytes) {
    return InvalidArgument("GGUF metadata strings exceed " +
                           std::to_string(kMaxGgufStringBytes >> 20) + " MiB");
  }
  out.resize(length);
  return source_.Read(out.data(), length);
}

Status GgufParser::ReadScalar(uint32_t type, GgufValue& out) {
  // Widen every integer to 64 bits and every float to double; the on-disk
  // type id is kept in out.type for callers that care.
  switch (type) {
    case kGgufUint8: {
      uint8_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = uint64_t{v};
      break;
    }
    case kGgufUint16: {
      uint16_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = uint64_t{v};
      break;
    }
    case kGgufUint32: {
      uint32_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = uint64_t{v};
      break;
    }
    case kGgufUint64: {
      uint64_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = v;
      break;
    }
    case kGgufInt8: {
      int8_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = int64_t{v};
      break;
    }
    case kGgufInt16: {
      int16_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = int64_t{v};
      break;
    }
    case kGgufInt32: {
      int32_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = int64_t{v};
      break;
    }
    case kGgufInt64: {
      int64_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = v;
      break;
    }
    case kGgufFloat32: {
      float v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = double{v};
      break;
    }
    case kGgufFloat64: {
      double v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      out.value = v;
      break;
    }
    case kGgufBool: {
      uint8_t v;
      ZEST_RETURN_IF_ERROR(ReadPod(v));
      if (v > 1) return InvalidArgument("GGUF bool value " + std::to_string(v));
      out.value = v == 1;
      break;
    }
    default:
      return InvalidArgument("unknown GGUF value type " + std::to_string(type));
  }
  return Status::Ok();
}

Status GgufParser::ReadArray(GgufValue& out) {
  uint32_t element_type = 0;
  uint64_t count = 0;
  ZEST_RETURN_IF_ERROR(ReadPod(element_type));
  ZEST_RETURN_IF_ERROR(ReadPod(count));
  out.element_type = element_type;
  out.array_size = count;
  if (element_type == kGgufString) {
    ZEST_RETURN_IF_ERROR(CheckCount(count, kMaxGgufStringArray, 8, "array strings"));
    // Grown as strings arrive, so the memory budget in ReadString stops a
    // hostile count before the vector itself gets large.
    std::vector<std::string> strings;
    strings.reserve(std::min<uint64_t>(count, 1 << 16));
    for (uint64_t i = 0; i < count; ++i) {
      ZEST_RETURN_IF_ERROR(
          ReadString(strings.emplace_back(), kMaxGgufStringLength, "array string"));
    }
    out.value = std::move(strings);
    return Status::Ok();
  }
  const uint64_t element_size = ScalarSize(element_type);
  if (element_size == 0) {
    return InvalidArgument("unsupported GGUF array element type " + std::to_string(element_type));
  }
  // Numeric arrays (token types, scores, merges ranks) are skipped: only
  // their length matters to zest. Division avoids overflow of count * size.
  if (count > source_.Remaining() / element_size) {
    return InvalidArgument("GGUF array of " + std::to_string(count) + " elements exceeds the file");
  }
  out.value = count;
  return source_.Skip(count * element_size);
}

Status GgufParser::ReadValue(uint32_t type, GgufValue& out) {
  out.type = type;
  if (type == kGgufString) {
    std::string s;
    ZEST_RETURN_IF_ERROR(ReadString(s, kMaxGgufStringLength, "string value"));
    out.value = std::move(s);
    return Status::Ok();
  }
  if (type == kGgufArray) return ReadArray(out);
  return ReadScalar(type, out);
}

Status GgufParser::ReadKeyValue(GgufFile& file) {
  std::string key;
  ZEST_RETURN_IF_ERROR(ReadString(key, kMaxGgufKeyLength, "key"));
  uint32_t type = 0;
  ZEST_RETURN_IF_ERROR(ReadPod(type));
  GgufValue value;
  ZEST_RETURN_IF_ERROR(ReadValue(type, value));
  if (!file.metadata.emplace(std::move(key), std::move(value)).second) {
    return InvalidArgument("duplicate GGUF key");
  }
  return Status::Ok();
}

Status GgufParser::ReadTensorInfo(GgufTensorInfo& info) {
  ZEST_RETURN_IF_ERROR(ReadString(info.name, kMaxGgufKeyLength, "tensor name"));
  uint32_t n_dims = 0;
  ZEST_RETURN_IF_ERROR(ReadPod(n_dims));
  if (n_dims == 0 || n_dims > kMaxGgufDims) {
    return InvalidArgument("tensor '" + info.name + "' has " + std::to_string(n_dims) +
                           " dimensions");
  }
  info.dims.resize(n_dims);
  for (uint64_t& dim : info.dims) {
    ZEST_RETURN_IF_ERROR(ReadPod(dim));
    // ggml stores ne as int64_t.
    if (dim > static_cast<uint64_t>(INT64_MAX)) {
      return InvalidArgument("tensor '" + info.name + "' has a negative dimension");
    }
  }
  ZEST_RETURN_IF_ERROR(ReadPod(info.type));
  ZEST_RETURN_IF_ERROR(ReadPod(info.offset));
  Result<uint64_t> bytes = TensorByteSize(info.type, info.dims);
  if (!bytes.ok()) {
    return InvalidArgument("tensor '" + info.name + "': " + bytes.status().message());
  }
  info.bytes = *bytes;
  return Status::Ok();
}

Status GgufParser::ReadAlignment(GgufFile& file) const {
  file.alignment = kDefaultAlignment;
  const GgufValue* value = file.Find("general.alignment");
  if (value == nullptr) return Status::Ok();
  const uint64_t alignment = file.GetUint("general.alignment", 0);
  if (value->type != kGgufUint32 || alignment == 0 || !std::has_single_bit(alignment)) {
    return InvalidArgument("general.alignment must be a u32 power of two");
  }
  file.alignment = static_cast<uint32_t>(alignment);
  return Status::Ok();
}

Status GgufParser::CheckTensorExtents(const GgufFile& file) const {
  if (file.data_offset > file.file_size && !file.tensors.empty()) {
    return InvalidArgument("GGUF data section starts beyond the end of the file");
  }
  const uint64_t data_size = file.file_size - std::min(file.data_offset, file.file_size);
  for (const GgufTensorInfo& t : file.tensors) {
    if (t.offset % file.alignment != 0) {
      return InvalidArgument("tensor '" + t.name + "' offset is not aligned");
    }
    if (t.offset > data_size || t.bytes > data_size - t.offset) {
      return InvalidArgument("tensor '" + t.name + "' data lies beyond the end of the file");
    }
  }
  return Status::Ok();
}

Result<GgufFile> GgufParser::Parse() {
  GgufFile file;
  file.file_size = source_.Size();
  uint32_t magic = 0;
  ZEST_RETURN_IF_ERROR(ReadPod(magic));
  if (magic != kGgufMagic) return InvalidArgument("not a GGUF file (bad magic)");
  ZEST_RETURN_IF_ERROR(ReadPod(file.version));
  // Version 1 used 32-bit counts and lengths; llama.cpp dropped it too.
  if (file.version < 2 || file.version > 3) {
    return InvalidArgument("unsupported GGUF version " + std::to_string(file.version));
  }
  uint64_t tensor_count = 0;
  uint64_t kv_count = 0;
  ZEST_RETURN_IF_ERROR(ReadPod(tensor_count));
  ZEST_RETURN_IF_ERROR(ReadPod(kv_count));
  ZEST_RETURN_IF_ERROR(CheckCount(kv_count, kMaxGgufKeyValues, kMinKeyValueBytes, "key/values"));
  for (uint64_t i = 0; i < kv_count; ++i) ZEST_RETURN_IF_ERROR(ReadKeyValue(file));
  ZEST_RETURN_IF_ERROR(ReadAlignment(file));
  ZEST_RETURN_IF_ERROR(CheckCount(tensor_count, kMaxGgufTensors, kMinTensorInfoBytes, "tensors"));
  file.tensors.resize(tensor_count);
  for (GgufTensorInfo& info : file.tensors) ZEST_RETURN_IF_ERROR(ReadTensorInfo(info));
  const uint64_t header_end = source_.Position();
  file.data_offset = (header_end + file.alignment - 1) / file.alignment * file.alignment;
  ZEST_RETURN_IF_ERROR(CheckTensorExtents(file));
  return file;
}

}  // namespace

Result<GgufFile> ReadGguf(const std::filesystem::path& path) {
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<FileSource> source, FileSource::Open(path));
  Result<GgufFile> file = GgufParser(*source).Parse();
  if (!file.ok()) {
    return Status(file.status().code(), path.string() + ": " + file.status().message());
  }
  return file;
}

Result<GgufFile> ParseGguf(std::string_view bytes) {
  MemorySource source(bytes);
  return GgufParser(source).Parse();
}

}  // namespace zest::models
