// Reader of safetensors files, the format stable-diffusion.cpp loads image
// generation models from (Hugging Face's checkpoints: SD 1.x/2.x, SDXL, SD3,
// Flux). Only the header is read: a u64 little-endian length N, then N
// bytes of JSON naming each tensor's dtype, shape and byte range in the
// data that follows (`__metadata__` holds free-form strings). Bounds-checked:
// a truncated or hostile file is an error, never a crash. Pure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"

namespace zest::models {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;  // "F16", "BF16", "F32", ...
  std::vector<uint64_t> shape;
  uint64_t begin = 0;  // byte range in the data section
  uint64_t end = 0;
};

struct SafetensorsFile {
  std::vector<SafetensorsTensor> tensors;
  std::map<std::string, std::string> metadata;  // `__metadata__`
  uint64_t header_bytes = 0;                    // the JSON's length
  uint64_t file_size = 0;
};

// Far above real checkpoints (SDXL: ~2,500 tensors, a ~250 KB header).
inline constexpr uint64_t kMaxSafetensorsHeader = 100ull << 20;

// kInvalidArgument when the bytes are not a whole safetensors file (a data
// range past the end: a cut-off download); kNotFound when it cannot be opened.
Result<SafetensorsFile> ReadSafetensorsFile(const std::filesystem::path& path);
Result<SafetensorsFile> ParseSafetensors(std::string_view header_json, uint64_t data_bytes);

// Which image generation architecture the tensors are, by the names
// stable-diffusion.cpp's loader recognises: "flux" (double_blocks), "sd3"
// (joint_blocks), "sdxl" (a UNet with SDXL's second text encoder),
// "stable-diffusion" (SD 1.x/2.x UNet). Empty: not a diffusion model (an
// LLM's safetensors, say), which zest does not serve.
std::string DiffusionArchitecture(const SafetensorsFile& file);

// What the registry and placement know of an image generation model:
// `image` set, its architecture, sizes and weight type. kInvalidArgument
// when it is not a diffusion model.
Result<ModelInfo> DescribeDiffusionModel(const SafetensorsFile& file);

}  // namespace zest::models
