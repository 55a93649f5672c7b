// Writes the synthetic vision projector: metadata as llama.cpp's clip loader
// (tools/mtmd/clip.cpp) reads it, the tensor names of its LLaVA graph, and
// random weights.
#include "tools/vision_projector.h"

#include <string>
#include <vector>

#include "tools/random_weights.h"

namespace zest::tools {
namespace {

// CLIP's layer norm epsilon.
constexpr float kLayerNormEpsilon = 1e-5f;

Status Validate(const VisionProjectorSpec& s) {
  if (s.text_embedding == 0 || s.image_size == 0 || s.patch_size == 0 || s.embedding == 0 ||
      s.heads == 0 || s.feed_forward == 0 || s.layers == 0) {
    return InvalidArgument("every size of a vision projector must be positive");
  }
  if (s.image_size % s.patch_size != 0) {
    return InvalidArgument("image size must be a multiple of the patch size");
  }
  if (s.embedding % s.heads != 0) {
    return InvalidArgument("vision embedding must be a multiple of heads");
  }
  if (s.feed_forward == s.embedding) {
    return InvalidArgument("vision feed-forward length must differ from its embedding");
  }
  if (s.type == TensorType::kQ8_0 &&
      (s.embedding % 32 != 0 || s.feed_forward % 32 != 0 || s.text_embedding % 32 != 0)) {
    return InvalidArgument(
        "Q8_0 needs the vision embedding, ff and text embedding to be multiples of 32");
  }
  return Status::Ok();
}

void AddMetadata(const VisionProjectorSpec& s, GgufWriter& w) {
  // What llama.cpp's converter writes for a projector file.
  w.AddString("general.architecture", "clip");
  w.AddString("general.type", "mmproj");
  w.AddString("general.name", s.name);
  w.AddBool("zest.synthetic", true);
  w.AddUint32("general.file_type", GgufFileType(s.type));
  w.AddString("clip.projector_type", kProjectorTypeMlp);
  w.AddBool("clip.has_vision_encoder", true);
  w.AddUint32("clip.vision.image_size", s.image_size);
  w.AddUint32("clip.vision.patch_size", s.patch_size);
  w.AddUint32("clip.vision.embedding_length", s.embedding);
  w.AddUint32("clip.vision.feed_forward_length", s.feed_forward);
  w.AddUint32("clip.vision.block_count", s.layers);
  w.AddUint32("clip.vision.attention.head_count", s.heads);
  w.AddFloat32("clip.vision.attention.layer_norm_epsilon", kLayerNormEpsilon);
  w.AddUint32("clip.vision.projection_dim", s.text_embedding);
  w.AddFloat32Array("clip.vision.image_mean", {0.5f, 0.5f, 0.5f});
  w.AddFloat32Array("clip.vision.image_std", {0.5f, 0.5f, 0.5f});
}

// A layer norm that changes nothing: weight 1, bias 0.
void AddNorm(const std::string& prefix, uint64_t width, GgufWriter& w) {
  w.AddTensor(prefix + ".weight", {width}, TensorType::kF32, std::vector<float>(width, 1.0f));
  w.AddTensor(prefix + ".bias", {width}, TensorType::kF32, std::vector<float>(width, 0.0f));
}

// A linear layer from `in` to `out` features: weight (GGUF dims {in, out})
// of the spec's type, F32 bias of zeros.
void AddLinear(const VisionProjectorSpec& s, const std::string& prefix, uint64_t in, uint64_t out,
               WeightGenerator& gen, GgufWriter& w) {
  w.AddTensor(prefix + ".weight", {in, out}, s.type, gen.Random(in * out));
  w.AddTensor(prefix + ".bias", {out}, TensorType::kF32, std::vector<float>(out, 0.0f));
}

void AddBlock(const VisionProjectorSpec& s, uint32_t layer, WeightGenerator& gen, GgufWriter& w) {
  const uint64_t n_embd = s.embedding;
  const std::string prefix = "v.blk." + std::to_string(layer) + ".";
  AddNorm(prefix + "ln1", n_embd, w);
  AddLinear(s, prefix + "attn_q", n_embd, n_embd, gen, w);
  AddLinear(s, prefix + "attn_k", n_embd, n_embd, gen, w);
  AddLinear(s, prefix + "attn_v", n_embd, n_embd, gen, w);
  AddLinear(s, prefix + "attn_out", n_embd, n_embd, gen, w);
  AddNorm(prefix + "ln2", n_embd, w);
  AddLinear(s, prefix + "ffn_up", n_embd, s.feed_forward, gen, w);
  AddLinear(s, prefix + "ffn_down", s.feed_forward, n_embd, gen, w);
}

// The patch embedding (a patch_size-square convolution over RGB), the
// class token and one position per patch plus the class token's.
void AddEmbeddings(const VisionProjectorSpec& s, WeightGenerator& gen, GgufWriter& w) {
  const uint64_t n_embd = s.embedding;
  const uint64_t p = s.patch_size;
  const uint64_t side = s.image_size / s.patch_size;
  // A convolution kernel: F16 in an F16 file, else F32 (as the converter
  // writes it; the engine's im2col takes no quantized kernel).
  const TensorType kernel = s.type == TensorType::kF16 ? TensorType::kF16 : TensorType::kF32;
  w.AddTensor("v.patch_embd.weight", {p, p, 3, n_embd}, kernel, gen.Random(p * p * 3 * n_embd));
  w.AddTensor("v.patch_embd.bias", {n_embd}, TensorType::kF32, std::vector<float>(n_embd, 0.0f));
  w.AddTensor("v.class_embd", {n_embd}, TensorType::kF32, gen.Random(n_embd));
  const uint64_t positions = side * side + 1;
  w.AddTensor("v.position_embd.weight", {n_embd, positions}, TensorType::kF32,
              gen.Random(n_embd * positions));
  AddNorm("v.pre_ln", n_embd, w);
}

}  // namespace

uint32_t ImageTokenCount(const VisionProjectorSpec& spec) {
  const uint32_t side = spec.patch_size == 0 ? 0 : spec.image_size / spec.patch_size;
  return side * side;
}

VisionProjectorSpec ProjectorFor(uint32_t text_embedding, TensorType type,
                                 const std::string& model_name) {
  VisionProjectorSpec spec;
  spec.name = model_name + "-mmproj";
  spec.text_embedding = text_embedding;
  spec.type = type;
  return spec;
}

Status WriteVisionProjector(const VisionProjectorSpec& spec, const std::filesystem::path& path) {
  ZEST_RETURN_IF_ERROR(Validate(spec));
  GgufWriter w;
  AddMetadata(spec, w);
  WeightGenerator gen(spec.seed);
  AddEmbeddings(spec, gen, w);
  for (uint32_t layer = 0; layer < spec.layers; ++layer) AddBlock(spec, layer, gen, w);
  // LLaVA's projector: linear, GELU, linear, into the text model's width.
  AddLinear(spec, "mm.0", spec.embedding, spec.text_embedding, gen, w);
  AddLinear(spec, "mm.2", spec.text_embedding, spec.text_embedding, gen, w);
  return w.Write(path);
}

}  // namespace zest::tools
