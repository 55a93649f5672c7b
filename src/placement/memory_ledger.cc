#include "placement/memory_ledger.h"

#include <algorithm>
#include <numeric>

namespace zest::placement {
namespace {

// ggml block geometry of the quantized cache types: 32 elements per block,
// q8_0 = 2-byte scale + 32 bytes, q4_0 = 2-byte scale + 16 bytes.
constexpr uint64_t kBlock = 32;
constexpr uint64_t kBytesPerQ8Block = 34;
constexpr uint64_t kBytesPerQ4Block = 18;

uint64_t Blocks(uint64_t elements) { return (elements + kBlock - 1) / kBlock; }

// KV cells one slot keeps for `layer`: its share of the context, or only the
// window (plus one micro-batch being written) on sliding-window blocks.
uint64_t CellsPerSlot(const models::ModelInfo& model, const LoadShape& shape, uint64_t layer) {
  uint64_t cells = shape.ctx_per_slot;
  if (model.IsSlidingWindowLayer(layer)) {
    cells = std::min(cells, model.sliding_window + shape.ubatch);
  }
  return cells;
}

// The GPU that holds the output head: the topmost layer goes to the last
// GPU with a share of the split (llama.cpp's upper_bound over the
// cumulative split never lands on a GPU of weight 0).
int HeadGpu(const Layout& layout) {
  int gpu = layout.gpu_count - 1;
  if (layout.split.size() == static_cast<std::size_t>(layout.gpu_count)) {
    while (gpu > 0 && layout.split[gpu] <= 0) --gpu;
  }
  return gpu;
}

}  // namespace

const char* KvTypeName(KvType type) {
  switch (type) {
    case KvType::kF16:
      return "f16";
    case KvType::kQ8_0:
      return "q8_0";
    case KvType::kQ4_0:
      return "q4_0";
  }
  return "f16";
}

Result<KvType> ParseKvType(const std::string& name) {
  for (KvType t : {KvType::kF16, KvType::kQ8_0, KvType::kQ4_0}) {
    if (name == KvTypeName(t)) return t;
  }
  return InvalidArgument("KV cache type '" + name + "' is not one of f16, q8_0, q4_0");
}

uint64_t KvTypeBytes(KvType type, uint64_t elements) {
  switch (type) {
    case KvType::kF16:
      return elements * 2;
    case KvType::kQ8_0:
      return Blocks(elements) * kBytesPerQ8Block;
    case KvType::kQ4_0:
      return Blocks(elements) * kBytesPerQ4Block;
  }
  return elements * 2;
}

uint64_t KvCacheBytes(const models::ModelInfo& model, const LoadShape& shape, uint64_t layer) {
  // K and V rows are quantized separately (each row is one head's vector
  // for one cell), so each is rounded up to whole blocks on its own.
  const uint64_t rows = CellsPerSlot(model, shape, layer) * model.head_count_kv *
                        static_cast<uint64_t>(std::max(shape.parallel, 1));
  return rows * (KvTypeBytes(shape.cache_type_k, model.key_length) +
                 KvTypeBytes(shape.cache_type_v, model.value_length));
}

uint64_t KvCacheBytes(const models::ModelInfo& model, const LoadShape& shape) {
  uint64_t total = 0;
  for (uint64_t layer = 0; layer < model.block_count; ++layer) {
    total += KvCacheBytes(model, shape, layer);
  }
  return total;
}

uint64_t ComputeBufferBytes(const models::ModelInfo& model, const LoadShape& shape) {
  // The graph's live tensors at its two peaks (memory_ledger.h): the logits
  // at the output, and within a layer the mask (alive through every layer,
  // freed before the output) beside the widest intermediate.
  const uint64_t output = 4ull * shape.ubatch * (model.embedding_length + model.vocab_size);
  uint64_t widest = 2 * model.feed_forward_length;  // gate and up
  if (!shape.flash_attention) widest = std::max(widest, model.head_count * shape.ctx_per_slot);
  const uint64_t mask = 2ull * shape.ubatch * shape.ctx_per_slot;
  const uint64_t layer = mask + 4ull * shape.ubatch * (model.embedding_length + widest);
  return std::max(output, layer);
}

int LayerDevice(const models::ModelInfo& model, const Layout& layout, uint64_t layer) {
  // llama.cpp counts the output head as the topmost of n + 1 layers: -ngl k
  // offloads the head and the last k - 1 blocks.
  const uint64_t n = model.block_count;
  const uint64_t offloaded = std::min<uint64_t>(std::max(layout.gpu_layers - 1, 0), n);
  if (layout.gpu_count <= 0 || layer < n - offloaded) return -1;
  if (layout.split.size() != static_cast<std::size_t>(layout.gpu_count)) return 0;
  // Offloaded blocks are dealt out in order, each GPU taking its fraction.
  const double sum = std::accumulate(layout.split.begin(), layout.split.end(), 0.0);
  if (sum <= 0) return 0;
  const double position = (static_cast<double>(layer - (n - offloaded)) + 0.5) / offloaded;
  double cumulative = 0;
  for (int gpu = 0; gpu < layout.gpu_count; ++gpu) {
    cumulative += layout.split[gpu] / sum;
    if (position < cumulative) return gpu;
  }
  return layout.gpu_count - 1;
}

bool ProjectorOnCpu(const models::ModelInfo& model, const Layout& layout) {
  if (layout.gpu_count <= 0) return true;
  for (uint64_t layer = 0; layer < model.block_count; ++layer) {
    if (LayerDevice(model, layout, layer) < 0) return true;
  }
  return false;
}

int MainGpu(const models::ModelInfo& model, const Layout& layout) {
  int main = -1;
  for (uint64_t layer = 0; layer < model.block_count; ++layer) {
    const int gpu = LayerDevice(model, layout, layer);
    if (gpu >= 0 && (main < 0 || gpu < main)) main = gpu;
  }
  return main;
}

uint64_t DraftBytes(const models::ModelInfo& draft, const LoadShape& target_shape) {
  LoadShape shape = target_shape;
  shape.draft.reset();
  shape.mmproj_bytes = 0;
  shape.cpu_repack = false;
  uint64_t bytes = 0;
  for (const DeviceMemory& m : PredictMemory(draft, shape, Layout{})) {
    bytes += m.weights + m.kv_cache + m.compute;
  }
  return bytes;
}

std::vector<DeviceMemory> PredictMemory(const models::ModelInfo& model, const LoadShape& shape,
                                        const Layout& layout) {
  std::vector<DeviceMemory> devices(1 + std::max(layout.gpu_count, 0));
  DeviceMemory& cpu = devices[0];
  std::vector<bool> runs_layers(devices.size(), false);
  for (uint64_t layer = 0; layer < model.block_count; ++layer) {
    const int gpu = LayerDevice(model, layout, layer);
    DeviceMemory& home = devices[gpu + 1];
    runs_layers[gpu + 1] = true;
    const uint64_t bytes = layer < model.layer_bytes.size() ? model.layer_bytes[layer] : 0;
    const uint64_t experts =
        layer < model.layer_expert_bytes.size() ? model.layer_expert_bytes[layer] : 0;
    const bool experts_on_cpu = gpu >= 0 && layer < static_cast<uint64_t>(layout.cpu_moe_layers);
    home.weights += experts_on_cpu ? bytes - experts : bytes;
    if (experts_on_cpu) cpu.weights += experts;
    if (gpu < 0 && shape.cpu_repack && shape.mmap) cpu.weights += bytes - experts;
    home.kv_cache += KvCacheBytes(model, shape, layer);
  }
  const bool output_on_gpu = layout.gpu_count > 0 && layout.gpu_layers >= 1;
  // A tied head on the CPU is the token embedding tensor itself; offloaded,
  // the GPU gets its own copy.
  cpu.weights += model.input_bytes;
  if (output_on_gpu) {
    devices[1 + HeadGpu(layout)].weights += model.output_bytes + model.tied_output_bytes;
  } else {
    cpu.weights += model.output_bytes;
  }
  const uint64_t compute = ComputeBufferBytes(model, shape);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    if (runs_layers[d] || (d == 0 && model.block_count == 0)) devices[d].compute += compute;
  }
  // With every block offloaded the CPU still embeds the input tokens.
  if (!runs_layers[0]) cpu.compute += 4ull * shape.ubatch * model.embedding_length;
  cpu.overhead += kEngineOverheadBytes + (shape.gpu_backend ? kGpuBackendHostBytes : 0);
  cpu.prompt_cache = shape.prompt_cache_bytes;
  for (std::size_t d = 1; d < devices.size(); ++d) {
    if (runs_layers[d]) devices[d].overhead += kGpuContextBytes;
  }
  // The projector goes where the main GPU is, else the CPU (ProjectorOnCpu).
  const int main_gpu = MainGpu(model, layout);
  const std::size_t main = main_gpu < 0 ? 0 : static_cast<std::size_t>(main_gpu) + 1;  // 0: CPU
  devices[main == 0 || ProjectorOnCpu(model, layout) ? 0 : main].overhead += shape.mmproj_bytes;
  // The draft runs on the engine's main device, whole: it is small, and on
  // the GPU it is fast.
  if (shape.draft) devices[main].draft += DraftBytes(*shape.draft, shape);
  return devices;
}

}  // namespace zest::placement
