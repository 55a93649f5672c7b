// Writes the synthetic whisper model: hyperparameters, a real mel filter
// bank, the synthetic vocabulary, and every tensor whisper.cpp's
// whisper_model_load creates, with the names, shapes and types it checks:
// random, except the decoder's embeddings, which follow a script.
#include "tools/whisper_model.h"

#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "models/whisper_file.h"
#include "tools/atomic_file.h"
#include "tools/gguf_writer.h"
#include "tools/mel_filters.h"
#include "tools/random_weights.h"
#include "tools/tensor_encoding.h"
#include "tools/whisper_script.h"
#include "tools/whisper_vocab.h"

namespace zest::tools {
namespace {

static_assert(std::endian::native == std::endian::little,
              "whisper ggml files are little endian; the writer copies host bytes");

constexpr uint32_t kFftSize = 400;  // 25 ms at 16 kHz
constexpr uint32_t kSampleRate = 16000;
// ggml's GGML_QNT_VERSION: whisper-quantize stores ftype + 1000 x version.
constexpr int32_t kQuantizationVersion = 2;

void AppendI32(int32_t v, std::string& out) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// whisper.cpp's ftype: the GGUF file type, quantized ones with the version.
int32_t FileTypeOf(TensorType type) {
  const auto ftype = static_cast<int32_t>(GgufFileType(type));
  return type == TensorType::kQ8_0 ? kQuantizationVersion * 1000 + ftype : ftype;
}

Status Validate(const WhisperModelSpec& s) {
  if (s.audio_layers == 0 || s.text_layers == 0 || s.state == 0 || s.heads == 0) {
    return InvalidArgument("layers, embedding and heads must be positive");
  }
  if (s.state % s.heads != 0) return InvalidArgument("embedding must be a multiple of heads");
  if (s.type == TensorType::kQ8_0 && s.state % 32 != 0) {
    return InvalidArgument("Q8_0 needs the embedding to be a multiple of 32");
  }
  return Status::Ok();
}

models::WhisperHparams HparamsOf(const WhisperModelSpec& s) {
  const auto state = static_cast<int32_t>(s.state);
  const auto heads = static_cast<int32_t>(s.heads);
  return {.n_vocab = s.multilingual ? kWhisperMultilingualVocabSize : kWhisperEnglishVocabSize,
          .n_audio_ctx = kWhisperAudioContext,
          .n_audio_state = state,
          .n_audio_head = heads,
          .n_audio_layer = static_cast<int32_t>(s.audio_layers),
          .n_text_ctx = kWhisperTextContext,
          .n_text_state = state,
          .n_text_head = heads,
          .n_text_layer = static_cast<int32_t>(s.text_layers),
          .n_mels = kWhisperMelBands,
          .ftype = FileTypeOf(s.type)};
}

// Everything before the tensors: magic, hparams, mel filters, vocabulary.
std::string EncodeHeader(const models::WhisperHparams& h) {
  std::string out;
  AppendI32(static_cast<int32_t>(models::kGgmlFileMagic), out);
  for (int32_t v :
       {h.n_vocab, h.n_audio_ctx, h.n_audio_state, h.n_audio_head, h.n_audio_layer, h.n_text_ctx,
        h.n_text_state, h.n_text_head, h.n_text_layer, h.n_mels, h.ftype}) {
    AppendI32(v, out);
  }
  const MelFilterBank mel = SlaneyMelFilterBank(h.n_mels, kFftSize, kSampleRate);
  AppendI32(static_cast<int32_t>(mel.bands), out);
  AppendI32(static_cast<int32_t>(mel.fft_bins), out);
  AppendF32(mel.weights, out);
  const std::vector<std::string> vocab = BuildWhisperVocab(h.n_vocab);
  AppendI32(static_cast<int32_t>(vocab.size()), out);
  for (const std::string& token : vocab) {
    AppendI32(static_cast<int32_t>(token.size()), out);
    out += token;
  }
  return out;
}

// Encodes tensors one at a time into the file: {n_dims, name length, ggml
// type, ne[0..], name, data}.
class TensorSink {
 public:
  TensorSink(AtomicFile& file, TensorType matrix_type, uint64_t seed)
      : file_(file), matrix_type_(matrix_type), weights_(seed) {}

  // A weight matrix or convolution kernel of the model's type (convolutions
  // are never quantized: whisper.cpp keeps them F16 unless the model is F32).
  Status Matrix(const std::string& name, const std::vector<uint64_t>& dims) {
    return Add(name, dims, matrix_type_, weights_.Random(Count(dims)));
  }
  Status Kernel(const std::string& name, const std::vector<uint64_t>& dims) {
    const TensorType type = matrix_type_ == TensorType::kF32 ? TensorType::kF32 : TensorType::kF16;
    return Add(name, dims, type, weights_.Random(Count(dims)));
  }
  Status Random(const std::string& name, const std::vector<uint64_t>& dims) {
    return Add(name, dims, TensorType::kF32, weights_.Random(Count(dims)));
  }
  // Given values: a matrix of the model's type, or an F32 tensor.
  Status Matrix(const std::string& name, const std::vector<uint64_t>& dims,
                const std::vector<float>& values) {
    return Add(name, dims, matrix_type_, values);
  }
  Status F32(const std::string& name, const std::vector<uint64_t>& dims,
             const std::vector<float>& values) {
    return Add(name, dims, TensorType::kF32, values);
  }
  std::vector<float> Draw(uint64_t count) { return weights_.Random(count); }
  Status Filled(const std::string& name, const std::vector<uint64_t>& dims, float value) {
    return Add(name, dims, TensorType::kF32, std::vector<float>(Count(dims), value));
  }
  // A layer norm: weight 1, bias 0.
  Status Norm(const std::string& prefix, uint64_t n) {
    ZEST_RETURN_IF_ERROR(Filled(prefix + ".weight", {n}, 1.0f));
    return Filled(prefix + ".bias", {n}, 0.0f);
  }
  // A linear layer: its weight (ne[0] = n_in, ne[1] = n_out) and, unless it
  // is an attention key (whisper has no key bias), a zero bias.
  Status Linear(const std::string& prefix, uint64_t n_in, uint64_t n_out, bool bias = true) {
    ZEST_RETURN_IF_ERROR(Matrix(prefix + ".weight", {n_in, n_out}));
    return bias ? Filled(prefix + ".bias", {n_out}, 0.0f) : Status::Ok();
  }

 private:
  static uint64_t Count(const std::vector<uint64_t>& dims) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    return n;
  }
  Status Add(const std::string& name, const std::vector<uint64_t>& dims, TensorType type,
             const std::vector<float>& values) {
    std::string out;
    AppendI32(static_cast<int32_t>(dims.size()), out);
    AppendI32(static_cast<int32_t>(name.size()), out);
    AppendI32(static_cast<int32_t>(type), out);
    for (uint64_t d : dims) AppendI32(static_cast<int32_t>(d), out);
    out += name;
    switch (type) {
      case TensorType::kF16:
        AppendF16(values, out);
        break;
      case TensorType::kQ8_0:
        AppendQ8_0(values, out);
        break;
      default:
        AppendF32(values, out);
    }
    return file_.Append(out);
  }

  AtomicFile& file_;
  TensorType matrix_type_;
  WeightGenerator weights_;
};

// Self-attention, or cross-attention over the audio when `kind` is
// "cross_attn": query, key (no bias), value, out, and the norm before it.
Status AddAttention(TensorSink& t, const std::string& block, const std::string& kind, uint64_t n) {
  ZEST_RETURN_IF_ERROR(t.Norm(block + kind + "_ln", n));
  ZEST_RETURN_IF_ERROR(t.Linear(block + kind + ".query", n, n));
  ZEST_RETURN_IF_ERROR(t.Linear(block + kind + ".key", n, n, /*bias=*/false));
  ZEST_RETURN_IF_ERROR(t.Linear(block + kind + ".value", n, n));
  return t.Linear(block + kind + ".out", n, n);
}

Status AddMlp(TensorSink& t, const std::string& block, uint64_t n) {
  ZEST_RETURN_IF_ERROR(t.Norm(block + "mlp_ln", n));
  ZEST_RETURN_IF_ERROR(t.Linear(block + "mlp.0", n, 4 * n));
  return t.Linear(block + "mlp.2", 4 * n, n);
}

Status AddEncoder(TensorSink& t, const models::WhisperHparams& h) {
  const uint64_t n = h.n_audio_state;
  ZEST_RETURN_IF_ERROR(t.Random("encoder.positional_embedding", {n, uint64_t(h.n_audio_ctx)}));
  ZEST_RETURN_IF_ERROR(t.Kernel("encoder.conv1.weight", {3, uint64_t(h.n_mels), n}));
  ZEST_RETURN_IF_ERROR(t.Filled("encoder.conv1.bias", {1, n}, 0.0f));
  ZEST_RETURN_IF_ERROR(t.Kernel("encoder.conv2.weight", {3, n, n}));
  ZEST_RETURN_IF_ERROR(t.Filled("encoder.conv2.bias", {1, n}, 0.0f));
  for (int32_t layer = 0; layer < h.n_audio_layer; ++layer) {
    const std::string block = "encoder.blocks." + std::to_string(layer) + ".";
    ZEST_RETURN_IF_ERROR(AddAttention(t, block, "attn", n));
    ZEST_RETURN_IF_ERROR(AddMlp(t, block, n));
  }
  return t.Norm("encoder.ln_post", n);
}

// The decoder's embeddings follow the script (see whisper_script.h); its
// blocks stay random.
Status AddDecoder(TensorSink& t, const models::WhisperHparams& h, uint64_t seed) {
  const uint64_t n = h.n_text_state;
  const uint64_t n_ctx = h.n_text_ctx, n_vocab = h.n_vocab;
  std::vector<float> positional = t.Draw(n * n_ctx);
  std::vector<float> tokens = t.Draw(n * n_vocab);
  ApplyWhisperScript(BuildWhisperScript(h.n_vocab, h.n_text_ctx, seed), h.n_text_state, tokens,
                     positional);
  ZEST_RETURN_IF_ERROR(t.F32("decoder.positional_embedding", {n, n_ctx}, positional));
  ZEST_RETURN_IF_ERROR(t.Matrix("decoder.token_embedding.weight", {n, n_vocab}, tokens));
  for (int32_t layer = 0; layer < h.n_text_layer; ++layer) {
    const std::string block = "decoder.blocks." + std::to_string(layer) + ".";
    ZEST_RETURN_IF_ERROR(AddAttention(t, block, "attn", n));
    ZEST_RETURN_IF_ERROR(AddAttention(t, block, "cross_attn", n));
    ZEST_RETURN_IF_ERROR(AddMlp(t, block, n));
  }
  return t.Norm("decoder.ln", n);
}

}  // namespace

Status WriteWhisperModel(const WhisperModelSpec& spec, const std::filesystem::path& path) {
  ZEST_RETURN_IF_ERROR(Validate(spec));
  const models::WhisperHparams hparams = HparamsOf(spec);
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  ZEST_RETURN_IF_ERROR(file->Append(EncodeHeader(hparams)));
  TensorSink tensors(*file, spec.type, spec.seed);
  ZEST_RETURN_IF_ERROR(AddEncoder(tensors, hparams));
  ZEST_RETURN_IF_ERROR(AddDecoder(tensors, hparams, spec.seed));
  return file->Commit();
}

std::string WhisperModelTranscript(const WhisperModelSpec& spec) {
  const models::WhisperHparams h = HparamsOf(spec);
  return WhisperScriptText(BuildWhisperScript(h.n_vocab, h.n_text_ctx, spec.seed),
                           BuildWhisperVocab(h.n_vocab));
}

}  // namespace zest::tools
