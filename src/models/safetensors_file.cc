#include "models/safetensors_file.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace zest::models {
namespace {

// Bytes per element of each dtype the format defines; 0 = unknown.
uint64_t DtypeBytes(std::string_view dtype) {
  struct Size {
    std::string_view dtype;
    uint64_t bytes;
  };
  static constexpr Size kSizes[] = {{"F64", 8}, {"F32", 4},     {"F16", 2},    {"BF16", 2},
                                    {"I64", 8}, {"I32", 4},     {"I16", 2},    {"I8", 1},
                                    {"U8", 1},  {"BOOL", 1},    {"U16", 2},    {"U32", 4},
                                    {"U64", 8}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  for (const Size& s : kSizes) {
    if (s.dtype == dtype) return s.bytes;
  }
  return 0;
}

Result<SafetensorsTensor> ParseTensor(const std::string& name, const nlohmann::json& j,
                                      uint64_t data_bytes) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("safetensors tensor '" + name + "': " + why);
  };
  if (!j.is_object()) return bad("not an object");
  SafetensorsTensor t;
  t.name = name;
  const auto dtype = j.find("dtype");
  const auto shape = j.find("shape");
  const auto offsets = j.find("data_offsets");
  if (dtype == j.end() || !dtype->is_string()) return bad("no dtype");
  t.dtype = dtype->get<std::string>();
  const uint64_t element_bytes = DtypeBytes(t.dtype);
  if (element_bytes == 0) return bad("unknown dtype " + t.dtype);
  if (shape == j.end() || !shape->is_array()) return bad("no shape");
  uint64_t elements = 1;
  for (const nlohmann::json& d : *shape) {
    if (!d.is_number_unsigned()) return bad("a dimension is not a count");
    const uint64_t n = d.get<uint64_t>();
    if (n != 0 && elements > std::numeric_limits<uint64_t>::max() / n) return bad("too large");
    elements *= n;
    t.shape.push_back(n);
  }
  if (offsets == j.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
    return bad("no data_offsets");
  }
  t.begin = (*offsets)[0].get<uint64_t>();
  t.end = (*offsets)[1].get<uint64_t>();
  if (t.begin > t.end || t.end > data_bytes) {
    return bad("its data lies past the end of the file (a cut-off download?)");
  }
  if (elements > std::numeric_limits<uint64_t>::max() / element_bytes ||
      t.end - t.begin != elements * element_bytes) {
    return bad("its byte range does not match its shape");
  }
  return t;
}

bool AnyNameHas(const SafetensorsFile& file, std::string_view part) {
  return std::any_of(file.tensors.begin(), file.tensors.end(), [&](const SafetensorsTensor& t) {
    return t.name.find(part) != std::string::npos;
  });
}

}  // namespace

Result<SafetensorsFile> ParseSafetensors(std::string_view header_json, uint64_t data_bytes) {
  nlohmann::json header = nlohmann::json::parse(header_json, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) return InvalidArgument("not a safetensors file: its header is not JSON");
  SafetensorsFile file;
  file.header_bytes = header_json.size();
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) return InvalidArgument("safetensors __metadata__ is not an object");
      for (const auto& [key, text] : value.items()) {
        if (text.is_string()) file.metadata[key] = text.get<std::string>();
      }
      continue;
    }
    ZEST_ASSIGN_OR_RETURN(SafetensorsTensor t, ParseTensor(name, value, data_bytes));
    file.tensors.push_back(std::move(t));
  }
  if (file.tensors.empty()) return InvalidArgument("safetensors file holds no tensors");
  return file;
}

Result<SafetensorsFile> ReadSafetensorsFile(const std::filesystem::path& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  std::FILE* f = ec ? nullptr : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return NotFound("cannot open " + path.string());
  unsigned char length_bytes[8] = {};
  uint64_t length = 0;
  const bool read_length = std::fread(length_bytes, 1, sizeof length_bytes, f) == 8;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];  // little endian
  if (!read_length || length == 0 || length > kMaxSafetensorsHeader || length > size - 8) {
    std::fclose(f);
    return InvalidArgument(path.string() + ": not a safetensors file (bad header length)");
  }
  std::string header(length, '\0');
  const bool read_header = std::fread(header.data(), 1, length, f) == length;
  std::fclose(f);
  if (!read_header) return InvalidArgument(path.string() + ": its header is cut off");
  Result<SafetensorsFile> file = ParseSafetensors(header, size - 8 - length);
  if (!file.ok())
    return Status(file.status().code(), path.string() + ": " + file.status().message());
  file->file_size = size;
  return file;
}

std::string DiffusionArchitecture(const SafetensorsFile& file) {
  // Flux and SD3 checkpoints may carry the UNet's prefix too: ask first.
  if (AnyNameHas(file, "double_blocks.")) return "flux";
  if (AnyNameHas(file, "joint_blocks.")) return "sd3";
  if (!AnyNameHas(file, "diffusion_model.")) return "";
  return AnyNameHas(file, "conditioner.embedders.1.") ? "sdxl" : "stable-diffusion";
}

Result<ModelInfo> DescribeDiffusionModel(const SafetensorsFile& file) {
  ModelInfo info;
  info.architecture = DiffusionArchitecture(file);
  if (info.architecture.empty()) {
    return InvalidArgument(
        "not an image generation model: no diffusion model tensors (zest serves language "
        "models as GGUF)");
  }
  info.image = true;
  info.file_size = file.file_size;
  std::map<std::string, uint64_t> bytes_by_dtype;
  for (const SafetensorsTensor& t : file.tensors) {
    uint64_t elements = 1;
    for (uint64_t d : t.shape) elements *= d;
    info.parameter_count += elements;
    info.tensor_bytes += t.end - t.begin;
    bytes_by_dtype[t.dtype] += t.end - t.begin;
  }
  // The weight type is the one most of the bytes are in.
  auto most = std::max_element(bytes_by_dtype.begin(), bytes_by_dtype.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  info.file_type = most->first;
  if (auto it = file.metadata.find("modelspec.title"); it != file.metadata.end()) {
    info.name = it->second;
  }
  return info;
}

}  // namespace zest::models
