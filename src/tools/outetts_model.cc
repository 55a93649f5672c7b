// Writes the synthetic OuteTTS-style backbone and WavTokenizer vocoder
// (tools/outetts_model.h): metadata and tensor shapes as llama.cpp's loader
// reads them (llama for the backbone, wavtokenizer-dec for the vocoder).
#include "tools/outetts_model.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/gguf_writer.h"
#include "tools/random_weights.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {
namespace {

// Byte tokens start here so that <0x0A>, the newline, is token 198 as in
// Qwen2's vocabulary: llama-tts's guide tokens key on 198.
constexpr uint32_t kFirstByte = 188;
constexpr uint32_t kImStart = 151644;
constexpr uint32_t kImEnd = 151645;
// <|t_0.00|> .. <|t_10.00|>: OuteTTS's word durations, after the codes.
constexpr uint32_t kFirstDurationToken = kOuteTtsFirstCodeToken + 4100;
constexpr uint32_t kDurationTokens = 1001;
// How much more an audio code's logit is than any other token's.
constexpr float kCodeBias = 10.0f;

struct TtsVocab {
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> types;
};

void SetToken(TtsVocab& v, uint32_t id, std::string text, int32_t type) {
  v.tokens[id] = std::move(text);
  v.types[id] = type;
}

// A SentencePiece vocabulary with byte fallback (any text tokenizes) that
// has, at OuteTTS-0.2's ids, the special tokens llama-tts writes into its
// prompt. Unused ids get texts no merge can reach ("[unused N]").
TtsVocab BuildTtsVocab() {
  TtsVocab v{.tokens = std::vector<std::string>(kOuteTtsBackboneVocab),
             .scores = std::vector<float>(kOuteTtsBackboneVocab, 0.0f),
             .types = std::vector<int32_t>(kOuteTtsBackboneVocab, kTokenNormal)};
  for (uint32_t id = 0; id < kOuteTtsBackboneVocab; ++id)
    v.tokens[id] = "[unused " + std::to_string(id) + "]";
  SetToken(v, 0, "<unk>", kTokenUnknown);
  SetToken(v, 1, "<s>", kTokenControl);
  SetToken(v, 2, "</s>", kTokenControl);
  SetToken(v, 3, "\xe2\x96\x81", kTokenNormal);  // "▁", a space
  for (char c = 'a'; c <= 'z'; ++c) SetToken(v, 4 + (c - 'a'), std::string(1, c), kTokenNormal);
  for (uint32_t b = 0; b < 256; ++b) {
    char text[8];
    std::snprintf(text, sizeof text, "<0x%02X>", b);
    SetToken(v, kFirstByte + b, text, kTokenByte);
  }
  SetToken(v, 151643, "<|endoftext|>", kTokenControl);
  SetToken(v, kImStart, "<|im_start|>", kTokenControl);
  SetToken(v, kImEnd, "<|im_end|>", kTokenControl);
  SetToken(v, 151646, "<|space|>", kTokenControl);  // OuteTTS-0.3's separator
  const char* outetts[] = {"<|text_start|>", "<|text_end|>", "<|audio_start|>", "<|audio_end|>",
                           "<|code_start|>", "<|code_end|>", "<|text_sep|>"};
  for (uint32_t i = 0; i < 7; ++i) SetToken(v, 151665 + i, outetts[i], kTokenControl);
  for (uint32_t code = 0; code < 4100; ++code) {
    SetToken(v, kOuteTtsFirstCodeToken + code, "<|" + std::to_string(code) + "|>", kTokenControl);
  }
  for (uint32_t i = 0; i < kDurationTokens; ++i) {
    char text[24];
    std::snprintf(text, sizeof text, "<|t_%u.%02u|>", i / 100, i % 100);
    SetToken(v, kFirstDurationToken + i, text, kTokenControl);
  }
  return v;
}

Status Validate(const OuteTtsModelSpec& s) {
  if (s.layers == 0 || s.embedding < 2 || s.heads == 0 || s.feed_forward == 0 || s.context == 0 ||
      s.vocoder_features == 0 || s.vocoder_embedding == 0 || s.vocoder_groups == 0 ||
      s.vocoder_feed_forward == 0 || s.vocoder_layers == 0) {
    return InvalidArgument("every width and count must be positive (embedding at least 2)");
  }
  if (s.embedding % s.heads != 0 || (s.embedding / s.heads) % 2 != 0) {
    return InvalidArgument("embedding must be a multiple of heads with an even head size");
  }
  if (s.vocoder_embedding % s.vocoder_groups != 0) {
    return InvalidArgument("the vocoder's width must be a multiple of its group norm groups");
  }
  return Status::Ok();
}

void AddBackboneMetadata(const OuteTtsModelSpec& s, GgufWriter& w) {
  const std::string arch = "llama";
  w.AddString("general.architecture", arch);
  w.AddString("general.name", s.name);
  w.AddBool("zest.synthetic", true);
  w.AddUint32("general.file_type", 1);  // mostly F16
  w.AddUint32(arch + ".context_length", s.context);
  w.AddUint32(arch + ".embedding_length", s.embedding);
  w.AddUint32(arch + ".block_count", s.layers);
  w.AddUint32(arch + ".feed_forward_length", s.feed_forward);
  w.AddUint32(arch + ".attention.head_count", s.heads);
  w.AddUint32(arch + ".attention.head_count_kv", s.heads);
  w.AddFloat32(arch + ".attention.layer_norm_rms_epsilon", 1e-5f);
  w.AddUint32(arch + ".rope.dimension_count", s.embedding / s.heads);
  w.AddFloat32(arch + ".rope.freq_base", 10000.0f);
  w.AddUint32(arch + ".vocab_size", kOuteTtsBackboneVocab);
}

void AddBackboneTokenizer(const TtsVocab& vocab, GgufWriter& w) {
  w.AddString("tokenizer.ggml.model", "llama");
  w.AddStringArray("tokenizer.ggml.tokens", vocab.tokens);
  w.AddFloat32Array("tokenizer.ggml.scores", vocab.scores);
  w.AddInt32Array("tokenizer.ggml.token_type", vocab.types);
  w.AddUint32("tokenizer.ggml.bos_token_id", 1);
  w.AddUint32("tokenizer.ggml.eos_token_id", 2);
  w.AddUint32("tokenizer.ggml.unknown_token_id", 0);
  w.AddUint32("tokenizer.ggml.eot_token_id", kImEnd);
  w.AddBool("tokenizer.ggml.add_bos_token", true);
  w.AddBool("tokenizer.ggml.add_eos_token", false);
  // The prompt's words follow special tokens ("<|text_start|>the"): no
  // SentencePiece space before them.
  w.AddBool("tokenizer.ggml.add_space_prefix", false);
}

std::vector<float> Scaled(std::vector<float> values, float factor) {
  for (float& x : values) x *= factor;
  return values;
}

void AddBackboneLayer(const OuteTtsModelSpec& s, uint32_t layer, WeightGenerator& gen,
                      GgufWriter& w) {
  const uint64_t n = s.embedding;
  const uint64_t ff = s.feed_forward;
  const std::string p = "blk." + std::to_string(layer) + ".";
  const std::vector<float> ones(n, 1.0f);
  w.AddTensor(p + "attn_norm.weight", {n}, TensorType::kF32, ones);
  for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
    w.AddTensor(p + m + ".weight", {n, n}, TensorType::kF16, gen.Random(n * n));
  }
  w.AddTensor(p + "ffn_norm.weight", {n}, TensorType::kF32, ones);
  w.AddTensor(p + "ffn_gate.weight", {n, ff}, TensorType::kF16, gen.Random(n * ff));
  w.AddTensor(p + "ffn_up.weight", {n, ff}, TensorType::kF16, gen.Random(n * ff));
  w.AddTensor(p + "ffn_down.weight", {ff, n}, TensorType::kF16, gen.Random(ff * n));
}

// The steering: dimension 0 of every embedding is a constant 1.0, which the
// (small, random) layers leave almost as it is, so after the final norm an
// output row's weight there is its token's bias: +kCodeBias for the audio
// codes the vocoder knows, -kCodeBias for every other token (the end of
// turn included). Whatever the prompt, the model writes audio codes; which
// ones follows the random dimensions (large in the output rows, so that
// llama-tts's top-k 4 sampling picks varied codes).
void AddBackboneWeights(const OuteTtsModelSpec& s, GgufWriter& w) {
  const uint64_t n = s.embedding;
  const uint64_t vocab = kOuteTtsBackboneVocab;
  WeightGenerator gen(s.seed);
  std::vector<float> embeddings = gen.Random(n * vocab);
  for (uint64_t t = 0; t < vocab; ++t) embeddings[t * n] = 1.0f;
  w.AddTensor("token_embd.weight", {n, vocab}, TensorType::kF16, embeddings);
  for (uint32_t layer = 0; layer < s.layers; ++layer) AddBackboneLayer(s, layer, gen, w);
  w.AddTensor("output_norm.weight", {n}, TensorType::kF32, std::vector<float>(n, 1.0f));
  std::vector<float> output = Scaled(gen.Random(n * vocab), 25.0f);
  for (uint64_t t = 0; t < vocab; ++t) {
    const bool code =
        t >= kOuteTtsFirstCodeToken && t < kOuteTtsFirstCodeToken + kOuteTtsCodebookSize;
    output[t * n] = code ? kCodeBias : -kCodeBias;
  }
  w.AddTensor("output.weight", {n, vocab}, TensorType::kF16, output);
}

Status WriteBackbone(const OuteTtsModelSpec& s, const std::filesystem::path& path) {
  GgufWriter w;
  AddBackboneMetadata(s, w);
  AddBackboneTokenizer(BuildTtsVocab(), w);
  AddBackboneWeights(s, w);
  return w.Write(path);
}

void AddVocoderMetadata(const OuteTtsModelSpec& s, GgufWriter& w) {
  const std::string arch = "wavtokenizer-dec";
  w.AddString("general.architecture", arch);
  w.AddString("general.name", s.name + "-vocoder");
  w.AddBool("zest.synthetic", true);
  w.AddUint32("general.file_type", 1);
  // block_count bounds both stacks; posnet always has six blocks.
  w.AddUint32(arch + ".block_count", std::max<uint32_t>(6, s.vocoder_layers));
  w.AddUint32(arch + ".context_length", 8192);
  w.AddUint32(arch + ".embedding_length", kOuteTtsVocoderOutput);
  w.AddUint32(arch + ".feed_forward_length", s.vocoder_feed_forward);
  w.AddUint32(arch + ".attention.head_count", 1);
  w.AddFloat32(arch + ".attention.layer_norm_epsilon", 1e-6f);
  w.AddFloat32(arch + ".attention.group_norm_epsilon", 1e-6f);
  w.AddUint32(arch + ".attention.group_norm_groups", s.vocoder_groups);
  w.AddBool(arch + ".attention.causal", false);
  w.AddUint32(arch + ".vocab_size", kOuteTtsCodebookSize);
  w.AddUint32(arch + ".features_length", s.vocoder_features);
  w.AddUint32(arch + ".posnet.embedding_length", s.vocoder_embedding);
  w.AddUint32(arch + ".posnet.block_count", 6);
  w.AddUint32(arch + ".convnext.embedding_length", s.vocoder_embedding);
  w.AddUint32(arch + ".convnext.block_count", s.vocoder_layers);
  w.AddString("tokenizer.ggml.model", "none");
}

// A norm's scale (ones) and shift (zeros), as {1, n} or {n}.
void AddNorm(const std::string& name, const std::vector<uint64_t>& dims, uint64_t n,
             GgufWriter& w) {
  w.AddTensor(name + ".weight", dims, TensorType::kF32, std::vector<float>(n, 1.0f));
  w.AddTensor(name + ".bias", dims, TensorType::kF32, std::vector<float>(n, 0.0f));
}

// A 1-D convolution: kernel {width, in, out} in F16 (what ggml's im2col
// takes) and bias {1, out}.
void AddConv(const std::string& name, uint64_t width, uint64_t in, uint64_t out,
             WeightGenerator& gen, GgufWriter& w) {
  w.AddTensor(name + ".weight", {width, in, out}, TensorType::kF16,
              Scaled(gen.Random(width * in * out), 10.0f));
  w.AddTensor(name + ".bias", {1, out}, TensorType::kF32, std::vector<float>(out, 0.0f));
}

// WavTokenizer's posnet: resnet, resnet, attention, resnet, resnet, norm.
void AddPosnet(const OuteTtsModelSpec& s, WeightGenerator& gen, GgufWriter& w) {
  const uint64_t n = s.vocoder_embedding;
  for (uint32_t i = 0; i < 6; ++i) {
    const std::string p = "posnet." + std::to_string(i) + ".";
    if (i == 2) {
      AddNorm(p + "attn_norm", {1, n}, n, w);
      for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
        AddConv(p + m, 1, n, n, gen, w);
      }
    } else if (i == 5) {
      AddNorm(p + "attn_norm", {1, n}, n, w);  // llama.cpp names the last norm so
    } else {
      AddNorm(p + "norm1", {1, n}, n, w);
      AddConv(p + "conv1", 3, n, n, gen, w);
      AddNorm(p + "norm2", {1, n}, n, w);
      AddConv(p + "conv2", 3, n, n, gen, w);
    }
  }
}

void AddConvnext(const OuteTtsModelSpec& s, WeightGenerator& gen, GgufWriter& w) {
  const uint64_t n = s.vocoder_embedding;
  const uint64_t ff = s.vocoder_feed_forward;
  for (uint32_t i = 0; i < s.vocoder_layers; ++i) {
    const std::string p = "convnext." + std::to_string(i) + ".";
    w.AddTensor(p + "dw.weight", {7, 1, n}, TensorType::kF16, Scaled(gen.Random(7 * n), 10.0f));
    w.AddTensor(p + "dw.bias", {1, n}, TensorType::kF32, std::vector<float>(n, 0.0f));
    AddNorm(p + "norm", {n}, n, w);
    w.AddTensor(p + "pw1.weight", {n, ff}, TensorType::kF16, Scaled(gen.Random(n * ff), 10.0f));
    w.AddTensor(p + "pw1.bias", {ff}, TensorType::kF32, std::vector<float>(ff, 0.0f));
    w.AddTensor(p + "pw2.weight", {ff, n}, TensorType::kF16, Scaled(gen.Random(ff * n), 10.0f));
    w.AddTensor(p + "pw2.bias", {n}, TensorType::kF32, std::vector<float>(n, 0.0f));
    w.AddTensor(p + "gamma.weight", {n}, TensorType::kF32, std::vector<float>(n, 0.1f));
  }
}

// The output rows are 641 log-magnitudes then 641 phases per code: small
// weights and a bias of 1 for the magnitudes (a steady, audible level),
// large ones for the phases, so each code's spectrum has its own random
// phases and the audio is noise.
void AddVocoderOutput(const OuteTtsModelSpec& s, WeightGenerator& gen, GgufWriter& w) {
  const uint64_t n = s.vocoder_embedding;
  const uint64_t half = kOuteTtsVocoderOutput / 2;
  AddNorm("output_norm", {n}, n, w);
  std::vector<float> output = gen.Random(n * kOuteTtsVocoderOutput);
  for (uint64_t row = half; row < kOuteTtsVocoderOutput; ++row) {
    for (uint64_t i = 0; i < n; ++i) output[row * n + i] *= 50.0f;
  }
  w.AddTensor("output.weight", {n, kOuteTtsVocoderOutput}, TensorType::kF16, output);
  std::vector<float> bias(kOuteTtsVocoderOutput, 0.0f);
  for (uint64_t row = 0; row < half; ++row) bias[row] = 1.0f;
  w.AddTensor("output.bias", {kOuteTtsVocoderOutput}, TensorType::kF32, bias);
}

Status WriteVocoder(const OuteTtsModelSpec& s, const std::filesystem::path& path) {
  GgufWriter w;
  AddVocoderMetadata(s, w);
  WeightGenerator gen(s.seed + 1);
  const uint64_t f = s.vocoder_features;
  w.AddTensor("token_embd.weight", {f, kOuteTtsCodebookSize}, TensorType::kF16,
              Scaled(gen.Random(f * kOuteTtsCodebookSize), 50.0f));
  AddConv("conv1d", 7, f, s.vocoder_embedding, gen, w);
  AddPosnet(s, gen, w);
  AddNorm("token_embd_norm", {s.vocoder_embedding}, s.vocoder_embedding, w);
  AddConvnext(s, gen, w);
  AddVocoderOutput(s, gen, w);
  return w.Write(path);
}

}  // namespace

std::filesystem::path OuteTtsVocoderPath(const std::filesystem::path& backbone) {
  std::filesystem::path vocoder = backbone;
  vocoder.replace_extension();  // NAME.gguf -> NAME
  vocoder += ".vocoder.gguf";
  return vocoder;
}

Status WriteOuteTtsModel(const OuteTtsModelSpec& spec, const std::filesystem::path& backbone) {
  if (Status valid = Validate(spec); !valid.ok()) return valid;
  if (Status written = WriteBackbone(spec, backbone); !written.ok()) return written;
  return WriteVocoder(spec, OuteTtsVocoderPath(backbone));
}

double OuteTtsWavSeconds(uint32_t n_predict) {
  return static_cast<double>(n_predict + 1) * kOuteTtsSecondsPerCode;
}

}  // namespace zest::tools
