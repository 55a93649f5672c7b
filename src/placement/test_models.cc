#include "placement/test_models.h"

#include "core/testing/temp_dir.h"
#include "models/ggml_types.h"
#include "tools/gguf_writer.h"

namespace zest::placement::testing {
namespace {

namespace fs = std::filesystem;

void Tensor(tools::GgufWriter& w, const std::string& name, const std::vector<uint64_t>& dims,
            uint32_t type) {
  auto bytes = models::TensorByteSize(type, dims);
  ASSERT_TRUE(bytes.ok()) << name << ": " << bytes.status().message();
  w.AddSparseTensor(name, dims, type, *bytes);
}

void AddMetadata(tools::GgufWriter& w, const ArchSpec& s) {
  const std::string a = s.architecture;
  w.AddString("general.architecture", a);
  w.AddString("general.name", s.name);
  w.AddUint32(a + ".block_count", static_cast<uint32_t>(s.layers));
  w.AddUint32(a + ".embedding_length", static_cast<uint32_t>(s.embedding));
  w.AddUint32(a + ".context_length", static_cast<uint32_t>(s.context));
  w.AddUint32(a + ".attention.head_count", static_cast<uint32_t>(s.heads));
  w.AddUint32(a + ".attention.head_count_kv", static_cast<uint32_t>(s.kv_heads));
  w.AddUint32(a + ".attention.key_length", static_cast<uint32_t>(s.head_dim));
  w.AddUint32(a + ".attention.value_length", static_cast<uint32_t>(s.head_dim));
  w.AddUint32(a + ".vocab_size", static_cast<uint32_t>(s.vocab));
  if (s.feed_forward > 0)
    w.AddUint32(a + ".feed_forward_length", static_cast<uint32_t>(s.feed_forward));
  if (s.experts > 0) {
    w.AddUint32(a + ".expert_count", static_cast<uint32_t>(s.experts));
    w.AddUint32(a + ".expert_used_count", static_cast<uint32_t>(s.experts_used));
    w.AddUint32(a + ".expert_feed_forward_length", static_cast<uint32_t>(s.expert_feed_forward));
  }
  if (s.sliding_window > 0) {
    w.AddUint32(a + ".attention.sliding_window", static_cast<uint32_t>(s.sliding_window));
  }
}

void AddBlock(tools::GgufWriter& w, const ArchSpec& s, uint64_t i) {
  const std::string p = "blk." + std::to_string(i) + ".";
  const uint64_t q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  Tensor(w, p + "attn_norm.weight", {s.embedding}, kF32);
  Tensor(w, p + "attn_q.weight", {s.embedding, q}, s.weight_type);
  Tensor(w, p + "attn_k.weight", {s.embedding, kv}, s.weight_type);
  Tensor(w, p + "attn_v.weight", {s.embedding, kv}, s.weight_type);
  Tensor(w, p + "attn_output.weight", {q, s.embedding}, s.weight_type);
  Tensor(w, p + "ffn_norm.weight", {s.embedding}, kF32);
  if (s.experts == 0) {
    Tensor(w, p + "ffn_gate.weight", {s.embedding, s.feed_forward}, s.weight_type);
    Tensor(w, p + "ffn_up.weight", {s.embedding, s.feed_forward}, s.weight_type);
    Tensor(w, p + "ffn_down.weight", {s.feed_forward, s.embedding}, s.weight_type);
    return;
  }
  const uint64_t e = s.experts, ff = s.expert_feed_forward;
  Tensor(w, p + "ffn_gate_inp.weight", {s.embedding, e}, kF32);
  Tensor(w, p + "ffn_gate_exps.weight", {s.embedding, ff, e}, s.expert_type);
  Tensor(w, p + "ffn_up_exps.weight", {s.embedding, ff, e}, s.expert_type);
  Tensor(w, p + "ffn_down_exps.weight", {ff, s.embedding, e}, s.expert_type);
}

}  // namespace

// Dense blocks' common fields, in the order model cards list them.
ArchSpec Shape(std::string name, std::string architecture, uint64_t layers, uint64_t embedding,
               uint64_t heads, uint64_t kv_heads, uint64_t head_dim, uint64_t vocab,
               uint64_t context) {
  ArchSpec s;
  s.name = std::move(name);
  s.architecture = std::move(architecture);
  s.layers = layers;
  s.embedding = embedding;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.head_dim = head_dim;
  s.vocab = vocab;
  s.context = context;
  return s;
}

ArchSpec Llama3_8B() {
  ArchSpec s = Shape("Llama-3-8B", "llama", 32, 4096, 32, 8, 128, 128256, 8192);
  s.feed_forward = 14336;
  return s;
}

ArchSpec Qwen3_30B_A3B() {
  ArchSpec s = Shape("Qwen3-30B-A3B", "qwen3moe", 48, 2048, 32, 4, 128, 151936, 40960);
  s.experts = 128;
  s.experts_used = 8;
  s.expert_feed_forward = 768;
  return s;
}

ArchSpec GptOss120B() {
  ArchSpec s = Shape("gpt-oss-120b", "gpt-oss", 36, 2880, 64, 8, 64, 201088, 131072);
  s.experts = 128;
  s.experts_used = 4;
  s.expert_feed_forward = 2880;
  s.sliding_window = 128;
  s.weight_type = kF16;
  s.expert_type = kMxfp4;
  return s;
}

ArchSpec Gemma3_12B() {
  ArchSpec s = Shape("gemma-3-12b", "gemma3", 48, 3840, 16, 8, 256, 262144, 131072);
  s.feed_forward = 15360;
  s.sliding_window = 1024;
  s.tied_output = true;
  return s;
}

fs::path WriteSparseModelFile(const ArchSpec& spec, const fs::path& dir) {
  tools::GgufWriter w;
  AddMetadata(w, spec);
  for (uint64_t i = 0; i < spec.layers; ++i) AddBlock(w, spec, i);
  Tensor(w, "token_embd.weight", {spec.embedding, spec.vocab}, spec.embedding_type);
  Tensor(w, "output_norm.weight", {spec.embedding}, kF32);
  if (!spec.tied_output) {
    Tensor(w, "output.weight", {spec.embedding, spec.vocab}, spec.embedding_type);
  }
  fs::path path = dir / ("zest_sparse_" + spec.name + ".gguf");
  Status st = w.Write(path);
  EXPECT_TRUE(st.ok()) << st.message();
  return path;
}

models::ModelInfo WriteSparseModel(const ArchSpec& spec) {
  // The file goes with `dir` on return: 60 GB of apparent size would confuse
  // du and disk checks.
  zest::testing::TempDir dir("sparse");
  auto file = models::ReadGguf(WriteSparseModelFile(spec, dir.path()));
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? models::Describe(*file) : models::ModelInfo{};
}

const models::ModelInfo& SparseLlama3_8B() {
  static const models::ModelInfo kInfo = WriteSparseModel(Llama3_8B());
  return kInfo;
}

}  // namespace zest::placement::testing
