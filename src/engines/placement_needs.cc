#include "engines/placement_needs.h"

#include <algorithm>
#include <bit>

#include "engines/llama_tts_adapter.h"
#include "models/catalog.h"

namespace zest::engines {

placement::NpuRequest NpuRequestFor(const hardware::Inventory& inventory,
                                    const std::vector<RecipeVerdict>& verdicts) {
  placement::NpuRequest npu;
  npu.engine = {"FastFlowLM", "(set its `flm` option to a FastFlowLM model tag)", kFlmRuntimeBytes,
                kFlmMinContext, /*one_model_at_a_time=*/true};
  if (inventory.npus.empty()) return npu;
  npu.present = true;
  npu.description = inventory.npus.front().name;
  for (const RecipeVerdict& v : verdicts) {
    if (v.recipe != kFlmRecipe) continue;
    npu.usable = v.verdict == Verdict::kUsable;
    npu.reason = v.reason;
  }
  return npu;
}

std::string NpuCheckpoint(const config::ModelSettings& options, const std::string& catalog_name) {
  if (!options.flm.empty() || catalog_name.empty()) return options.flm;
  const models::CatalogEntry* entry = models::Catalog::Builtin().Find(catalog_name);
  return entry != nullptr ? entry->flm : "";
}

std::string NpuRefusedOptions(const config::ModelSettings& o) {
  std::string out;
  auto add = [&](bool set, const char* name) {
    if (set) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  add(o.n_gpu_layers.has_value(), "n_gpu_layers");
  add(o.n_cpu_moe.has_value(), "n_cpu_moe");
  add(!o.tensor_split.empty(), "tensor_split");
  add(o.parallel.has_value(), "parallel");
  add(!o.kv_type.empty() || !o.cache_type_k.empty() || !o.cache_type_v.empty(), "KV cache type");
  add(o.flash_attention.has_value(), "flash_attention");
  add(o.batch.has_value() || o.ubatch.has_value(), "batch");
  add(o.no_mmap || o.mlock, "no_mmap/mlock");
  add(o.cache_ram.has_value(), "cache_ram");
  add(!o.extra_args.empty(), "extra_args");
  return out.empty() ? out : out + ", which only llama-server takes";
}

int DefaultParallel(const models::ModelInfo& model, int parallel) {
  if (!model.embedding) return parallel;
  return static_cast<int>(std::bit_floor(static_cast<unsigned>(std::max(parallel, 1))));
}

placement::CpuEngineNeeds CpuEngineNeedsFor(const EngineChoice& choice,
                                            const models::ModelInfo& model) {
  placement::CpuEngineNeeds needs;
  if (choice.speech) {
    needs.what = "speech model";
    needs.engine = "whisper.cpp";
    // The decoder's logits over its text context, F32: the largest buffer.
    needs.buffers = model.vocab_size * model.context_length * 4;
    needs.buffers_label = "decoder buffers";
    needs.engine_bytes = kSpeechEngineBytes;
    needs.ctx_per_slot = model.context_length;
    return needs;
  }
  if (choice.tts) {
    needs.what = "speech-out model";
    needs.engine = "llama-tts";
    // Its KV cache at the context it runs with (F16 K and V), one sequence.
    needs.ctx_per_slot = std::min<uint64_t>(model.context_length, kTtsContext);
    needs.buffers = 2 * 2 * model.block_count * needs.ctx_per_slot * model.head_count_kv *
                    std::max<uint64_t>(model.key_length, 1);
    needs.buffers_label = "KV cache";
    needs.engine_bytes = kTtsEngineBytes;
    return needs;
  }
  needs.what = "image model";
  needs.engine = "stable-diffusion.cpp";
  needs.buffers = kImageComputeBytes;
  needs.buffers_label = "working buffers (estimated at 512x512)";
  needs.engine_bytes = kImageEngineBytes;
  return needs;
}

uint64_t VocoderBytes(const std::filesystem::path& vocoder) {
  constexpr uint64_t kMaxVocoderWidth = uint64_t{1} << 16;
  std::error_code ec;
  const uint64_t weights = std::filesystem::file_size(vocoder, ec);
  if (ec) return 0;
  Result<models::GgufFile> gguf = models::ReadGguf(vocoder);
  if (!gguf.ok() || gguf->Architecture() != "wavtokenizer-dec") return weights;
  constexpr uint64_t kOutputFloats = 1282;  // 641 log magnitudes and 641 phases
  constexpr uint64_t kHiddenActivations = 8;
  // The width comes from the file: a claim past any real vocoder's (768 for
  // WavTokenizer-large) is charged as kMaxVocoderWidth, so a hostile GGUF
  // cannot overflow the sum into a small number that fits anywhere.
  const uint64_t width = std::min(gguf->ArchUint("embedding_length", 768), kMaxVocoderWidth);
  const uint64_t buffers = static_cast<uint64_t>(kOuteTtsVocoderBatch) *
                           (kOutputFloats + kHiddenActivations * width) * sizeof(float);
  // The batch's frames also travel as JSON text (/embedding): llama-server
  // builds and prints it, the tts-engine reads, unchunks and parses it, and
  // neither heap gives the pages back. Measured with the synthetic pair
  // (speech_out_outetts.test.mjs, a 4096-code batch): about 52 bytes a
  // float over the rest, all copies together; 64 leaves room.
  constexpr uint64_t kReplyBytesPerFloat = 64;
  const uint64_t reply =
      static_cast<uint64_t>(kOuteTtsVocoderBatch) * kOutputFloats * kReplyBytesPerFloat;
  return weights + kTtsEngineBytes + buffers + reply;
}

}  // namespace zest::engines
