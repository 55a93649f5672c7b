// Memory ledger: predicts how much memory a model takes on each device when
// llama-server loads it with a given layout, from GGUF metadata alone
// (models::ModelInfo). Pure functions; thread-safe; no I/O.
//
// What llama-server allocates, and how it is counted here:
//   weights  tensor bytes as stored; with gpu_layers = k the output head
//            and the last k - 1 blocks go to the GPUs (llama.cpp counts the
//            head as the topmost of block_count + 1 layers: seen in its log,
//            "-ngl 2" on 2 blocks offloads the head and 1 block); the
//            token embeddings always stay on the CPU; with cpu_moe_layers = m
//            the experts (*_exps) of blocks [0, m) stay on the CPU.
//   KV cache per block on the block's device: cells × kv_heads × (key_length
//            × bytes of the K type + value_length × bytes of the V type).
//            Cells are ctx_per_slot × parallel; a sliding-window block keeps
//            only min(ctx_per_slot, window + ubatch) cells per slot.
//   compute  the graph's scratch on each device that runs layers, at its
//            peak: the output phase, 4 bytes × ubatch × (embedding + vocab),
//            or a layer's, the f16 attention mask (2 bytes × ubatch × cells
//            of a slot) beside 4 bytes × ubatch × (embedding + the wider of
//            the feed-forward's two intermediates and, without flash
//            attention, the attention scores: heads × cells of a slot).
//            Large vocabularies peak at the output (Llama 3 8B: the engine's
//            258.5 MiB), small ones in a layer (a 512-wide synthetic model,
//            1024 feed-forward, 4096 cells: the engine reported 11.0 MiB,
//            9.0 counted here, 2.0 by the output phase alone).
//   repack   with cpu_repack and mmap, the CPU blocks' dense weights once more.
//   overhead the engine process itself on the CPU, a driver context per GPU.
//   prompt cache  the host-RAM cache of idle conversations (llama-server's
//            --cache-ram), on the CPU at its full size: it fills as
//            conversations come and go, and admission must hold room for it.
//   draft    a speculative-decoding draft model's weights, KV cache (the
//            target's context and slots) and compute buffer, all on the
//            target's main device: its first GPU, else the CPU.
//   learned  (added by placement, not here) what loads of this model file
//            measured beyond the rest on the CPU (memory_correction.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"

namespace zest::placement {

// KV cache element types the engine accepts for -ctk/-ctv that zest offers.
enum class KvType { kF16, kQ8_0, kQ4_0 };
const char* KvTypeName(KvType type);  // "f16", "q8_0", "q4_0" (llama-server spelling)
Result<KvType> ParseKvType(const std::string& name);
// Bytes of `elements` KV entries of `type` (block types round up to blocks).
uint64_t KvTypeBytes(KvType type, uint64_t elements);

// What the engine is asked to allocate, independent of where.
struct LoadShape {
  uint64_t ctx_per_slot = 4096;
  int parallel = 1;
  KvType cache_type_k = KvType::kF16;  // -ctk
  KvType cache_type_v = KvType::kF16;  // -ctv
  bool flash_attention = true;         // llama-server's "auto" enables it where supported
  uint32_t ubatch = 512;
  uint64_t mmproj_bytes = 0;  // vision projector file, loaded beside the model
  bool mmap = true;           // weights mapped from the file (not --load-mode none)
  // The CPU backend copies the weights of CPU blocks into its own layout
  // (AMX on CPUs that have it). With mmap the file pages it read stay mapped
  // too, so both copies are resident until the kernel reclaims the first.
  bool cpu_repack = false;
  bool gpu_backend = false;         // the engine has a GPU backend (kGpuBackendHostBytes)
  uint64_t prompt_cache_bytes = 0;  // --cache-ram, on the CPU
  // A draft model for speculative decoding, loaded beside the model; null = none.
  std::shared_ptr<const models::ModelInfo> draft;
};

// Where layers go: the output head and the last `gpu_layers` - 1 blocks on
// the GPUs, divided between them in proportion to `split` (one weight per
// GPU; empty = all on one). A GPU of weight 0 gets no block; the head goes
// to the last GPU of weight > 0, as llama.cpp deals it out.
struct Layout {
  int gpu_count = 0;
  int gpu_layers = 0;  // -ngl: 0..block_count+1 (everything)
  std::vector<double> split;
  int cpu_moe_layers = 0;  // keep the experts of the first N blocks on the CPU
};

struct DeviceMemory {
  uint64_t weights = 0;
  uint64_t kv_cache = 0;
  uint64_t compute = 0;
  uint64_t overhead = 0;      // engine process, driver context, vision projector
  uint64_t prompt_cache = 0;  // idle conversations in host RAM (CPU only)
  // What past loads measured beyond the rest (CPU only, memory_correction.h);
  // never set by PredictMemory, added by placement.
  uint64_t learned = 0;
  uint64_t draft = 0;  // a draft model's weights, KV cache and compute
  uint64_t Total() const {
    return weights + kv_cache + compute + overhead + prompt_cache + learned + draft;
  }
  // What a load takes at once: all but the prompt cache, which starts empty
  // (the figure memory corrections are learned against).
  uint64_t AtLoad() const { return Total() - prompt_cache - learned; }
};

// The engine's own resident memory beside the model (measured for the
// rootfs llama-server, see bench/RESULTS.md); more when its build has a GPU
// backend, whose libraries and host buffers load even for a CPU-only model
// (measured with Vulkan on mesa: 92 MiB in all); a GPU driver context.
inline constexpr uint64_t kEngineOverheadBytes = 24ull << 20;
inline constexpr uint64_t kGpuBackendHostBytes = 68ull << 20;
inline constexpr uint64_t kGpuContextBytes = 256ull << 20;
// llama-server's own --cache-ram default (8192 MiB): zest never gives more
// unless cache_ram says so.
inline constexpr uint64_t kMaxPromptCacheBytes = 8192ull << 20;
// An engine's default prompt cache in KV caches (policy.cc, DefaultPromptCache).
inline constexpr uint64_t kPromptCacheKvMultiple = 4;

// KV cache bytes of one block for the whole engine (all slots).
uint64_t KvCacheBytes(const models::ModelInfo& model, const LoadShape& shape, uint64_t layer);
// KV cache bytes of all blocks.
uint64_t KvCacheBytes(const models::ModelInfo& model, const LoadShape& shape);
// Compute buffer of one device that runs layers.
uint64_t ComputeBufferBytes(const models::ModelInfo& model, const LoadShape& shape);

// What a draft model takes on one device: all its layers there, at the
// target's context, slots and KV types.
uint64_t DraftBytes(const models::ModelInfo& draft, const LoadShape& target_shape);

// Index 0 is the CPU, index 1 + i is GPU i of the layout.
std::vector<DeviceMemory> PredictMemory(const models::ModelInfo& model, const LoadShape& shape,
                                        const Layout& layout);

// The GPU (0-based) that block `layer` runs on under `layout`, or -1 for the CPU.
int LayerDevice(const models::ModelInfo& model, const Layout& layout, uint64_t layer);
// The engine's main device under `layout`: the first GPU (0-based) that runs
// a block, or -1 when every block stays on the CPU. The draft model goes
// there whole, and the projector too unless ProjectorOnCpu; the plan's
// --device-draft and the ledger both ask here.
int MainGpu(const models::ModelInfo& model, const Layout& layout);
// Whether a vision projector stays on the CPU (the engine's
// --no-mmproj-offload): where `layout` keeps some of the model's blocks on
// the CPU, the GPU's room is worth more as layers than as the projector;
// where the model is all on GPUs, the projector goes to the main one.
bool ProjectorOnCpu(const models::ModelInfo& model, const Layout& layout);

}  // namespace zest::placement
