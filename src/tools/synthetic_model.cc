// Writes the synthetic llama model: metadata as llama.cpp's llama loader
// expects it, the byte-fallback vocabulary, and random (steered) weights or
// the designed ones of the quote-brace and file-reader models.
#include "tools/synthetic_model.h"

#include <string>

#include "tools/file_reader_weights.h"
#include "tools/quote_brace_weights.h"
#include "tools/random_weights.h"
#include "tools/steering_weights.h"
#include "tools/successor_chain.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {
namespace {

Status Validate(const SyntheticModelSpec& s) {
  if (s.layers == 0 || s.embedding == 0 || s.heads == 0 || s.kv_heads == 0 || s.feed_forward == 0 ||
      s.context == 0) {
    return InvalidArgument("layers, embedding, heads, kv-heads, ff and context must be positive");
  }
  if (s.embedding % s.heads != 0 || (s.embedding / s.heads) % 2 != 0) {
    return InvalidArgument("embedding must be a multiple of heads with an even head size");
  }
  if (s.heads % s.kv_heads != 0) return InvalidArgument("heads must be a multiple of kv-heads");
  if (s.type == TensorType::kQ8_0 && (s.embedding % 32 != 0 || s.feed_forward % 32 != 0)) {
    return InvalidArgument("Q8_0 needs embedding and ff to be multiples of 32");
  }
  if (s.successor_chain && (s.quote_brace || !s.generates())) {
    return InvalidArgument("a successor chain goes on a random model that writes text");
  }
  if (s.quote_brace && !s.generates()) {
    return InvalidArgument("the quote-brace model writes text: not an embedding model or reranker");
  }
  if (s.file_reader && (s.quote_brace || s.successor_chain || !s.generates())) {
    return InvalidArgument("the file-reader model has designed weights of its own and writes text");
  }
  if (s.file_reader && (s.kv_heads < 2 || s.embedding < FileReaderMinEmbedding())) {
    return InvalidArgument("the file-reader model needs 2 KV heads and an embedding of at least " +
                           std::to_string(FileReaderMinEmbedding()));
  }
  if (s.generates() && s.embedding < kSteeringDimensions) {
    return InvalidArgument("a model that generates text needs an embedding of at least " +
                           std::to_string(kSteeringDimensions) +
                           " (the steering's own dimensions)");
  }
  return Status::Ok();
}

// llama's, or for a reranker qwen3's (llama's with q/k norms), which
// llama.cpp loads a rank classifier head for.
std::string Architecture(const SyntheticModelSpec& s) { return s.reranker ? "qwen3" : "llama"; }

// Qwen3-Reranker's prompt shape: the engine puts the query and the
// document in and scores the last token.
constexpr const char* kRerankTemplate =
    "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query "
    "and the Instruct provided. Note that the answer can only be \"yes\" or "
    "\"no\".<|im_end|>\n<|im_start|>user\n<Instruct>: Given a web search query, retrieve "
    "relevant passages that answer the query\n<Query>: {query}\n<Document>: "
    "{document}<|im_end|>\n<|im_start|>assistant\n";

void AddModelMetadata(const SyntheticModelSpec& s, uint32_t vocab_size, GgufWriter& w) {
  const std::string arch = Architecture(s);
  w.AddString("general.architecture", arch);
  w.AddString("general.name", s.name);
  // Marks the file as synthetic (random or designed weights), so zest can
  // warn whoever serves it.
  w.AddBool("zest.synthetic", true);
  w.AddUint32("general.file_type", GgufFileType(s.type));
  w.AddUint32(arch + ".context_length", s.context);
  w.AddUint32(arch + ".embedding_length", s.embedding);
  w.AddUint32(arch + ".block_count", s.layers);
  w.AddUint32(arch + ".feed_forward_length", s.feed_forward);
  w.AddUint32(arch + ".attention.head_count", s.heads);
  w.AddUint32(arch + ".attention.head_count_kv", s.kv_heads);
  w.AddFloat32(arch + ".attention.layer_norm_rms_epsilon", kRmsNormEpsilon);
  w.AddUint32(arch + ".rope.dimension_count", s.embedding / s.heads);
  w.AddFloat32(arch + ".rope.freq_base", RopeFreqBase(s.embedding / s.heads, s.context));
  w.AddUint32(arch + ".vocab_size", vocab_size);
  // 1 = mean (llama_pooling_type).
  if (s.embedding_model) w.AddUint32(arch + ".pooling_type", 1);
  // 4 = rank (llama_pooling_type): a score per input.
  if (s.reranker) w.AddUint32(arch + ".pooling_type", 4);
}

void AddTokenizer(const SyntheticModelSpec& s, const SyntheticVocab& vocab, GgufWriter& w) {
  w.AddString("tokenizer.ggml.model", "llama");
  w.AddStringArray("tokenizer.ggml.tokens", vocab.tokens);
  w.AddFloat32Array("tokenizer.ggml.scores", vocab.scores);
  w.AddInt32Array("tokenizer.ggml.token_type", vocab.types);
  w.AddUint32("tokenizer.ggml.bos_token_id", vocab.bos_id);
  w.AddUint32("tokenizer.ggml.eos_token_id", vocab.eos_id);
  w.AddUint32("tokenizer.ggml.unknown_token_id", vocab.unknown_id);
  // Chat turns end with <|im_end|>; generation stops there too.
  w.AddUint32("tokenizer.ggml.eot_token_id", vocab.im_end_id);
  w.AddUint32("tokenizer.ggml.fim_pre_token_id", vocab.fim_prefix_id);
  w.AddUint32("tokenizer.ggml.fim_suf_token_id", vocab.fim_suffix_id);
  w.AddUint32("tokenizer.ggml.fim_mid_token_id", vocab.fim_middle_id);
  w.AddBool("tokenizer.ggml.add_bos_token", true);
  w.AddBool("tokenizer.ggml.add_eos_token", false);
  // No "▁" before text that follows a special token: llama.cpp's grammars
  // for JSON schemas and tool calls begin with the generation prompt
  // ("<|im_start|>assistant\n"), which the grammar sampler must accept as
  // it tokenizes; with SentencePiece's default space prefix it reads
  // " assistant", and every grammar failed ("Failed to initialize
  // samplers: std::exception", llama-server build 11669).
  w.AddBool("tokenizer.ggml.add_space_prefix", false);
  w.AddString("tokenizer.chat_template", ChatMlTemplate());
  if (s.reranker) w.AddString("tokenizer.chat_template.rerank", kRerankTemplate);
}

// One block's matrices, GGUF layout (row r, the output feature, holds one
// weight per input feature).
struct LayerWeights {
  std::vector<float> q, k, v, attn_output, gate, up, down;
};

LayerWeights RandomLayer(const SyntheticModelSpec& s, uint32_t layer,
                         const SteeringWeights& steering, WeightGenerator& gen) {
  const uint64_t n_embd = s.embedding;
  const uint64_t n_embd_kv = n_embd / s.heads * s.kv_heads;
  const uint64_t n_ff = s.feed_forward;
  LayerWeights m{.q = gen.Random(n_embd * n_embd),
                 .k = gen.Random(n_embd * n_embd_kv),
                 .v = gen.Random(n_embd * n_embd_kv),
                 .attn_output = gen.Random(n_embd * n_embd),
                 .gate = gen.Random(n_embd * n_ff),
                 .up = gen.Random(n_embd * n_ff),
                 .down = gen.Random(n_ff * n_embd)};
  steering.AdjustLayer(layer, m.q, m.k, m.v, m.attn_output, m.down);
  return m;
}

// A block that adds nothing to the residual stream: the quote-brace model's.
LayerWeights ZeroLayer(const SyntheticModelSpec& s) {
  const uint64_t n_embd = s.embedding;
  const uint64_t n_embd_kv = n_embd / s.heads * s.kv_heads;
  const uint64_t n_ff = s.feed_forward;
  return {.q = std::vector<float>(n_embd * n_embd),
          .k = std::vector<float>(n_embd * n_embd_kv),
          .v = std::vector<float>(n_embd * n_embd_kv),
          .attn_output = std::vector<float>(n_embd * n_embd),
          .gate = std::vector<float>(n_embd * n_ff),
          .up = std::vector<float>(n_embd * n_ff),
          .down = std::vector<float>(n_ff * n_embd)};
}

void AddLayer(const SyntheticModelSpec& s, uint32_t layer, const LayerWeights& m, GgufWriter& w) {
  const uint64_t n_embd = s.embedding;
  const uint64_t n_embd_kv = n_embd / s.heads * s.kv_heads;
  const uint64_t n_ff = s.feed_forward;
  const std::string prefix = "blk." + std::to_string(layer) + ".";
  const std::vector<float> ones(n_embd, 1.0f);
  w.AddTensor(prefix + "attn_norm.weight", {n_embd}, TensorType::kF32, ones);
  w.AddTensor(prefix + "attn_q.weight", {n_embd, n_embd}, s.type, m.q);
  w.AddTensor(prefix + "attn_k.weight", {n_embd, n_embd_kv}, s.type, m.k);
  w.AddTensor(prefix + "attn_v.weight", {n_embd, n_embd_kv}, s.type, m.v);
  w.AddTensor(prefix + "attn_output.weight", {n_embd, n_embd}, s.type, m.attn_output);
  if (s.reranker) {  // qwen3's per-head norms of queries and keys
    const uint64_t head_dim = n_embd / s.heads;
    w.AddTensor(prefix + "attn_q_norm.weight", {head_dim}, TensorType::kF32,
                std::vector<float>(head_dim, 1.0f));
    w.AddTensor(prefix + "attn_k_norm.weight", {head_dim}, TensorType::kF32,
                std::vector<float>(head_dim, 1.0f));
  }
  w.AddTensor(prefix + "ffn_norm.weight", {n_embd}, TensorType::kF32, ones);
  w.AddTensor(prefix + "ffn_gate.weight", {n_embd, n_ff}, s.type, m.gate);
  w.AddTensor(prefix + "ffn_up.weight", {n_embd, n_ff}, s.type, m.up);
  w.AddTensor(prefix + "ffn_down.weight", {n_ff, n_embd}, s.type, m.down);
}

// Random weights, steered (tools/steering_weights.h).
void AddRandomWeights(const SyntheticModelSpec& spec, const SyntheticVocab& vocab, GgufWriter& w) {
  const uint64_t n_vocab = vocab.tokens.size();
  const uint64_t n_embd = spec.embedding;
  WeightGenerator gen(spec.seed);
  const SteeringWeights steering(spec, vocab);
  std::vector<float> embeddings = gen.Random(n_embd * n_vocab);
  steering.AdjustEmbeddings(embeddings);
  w.AddTensor("token_embd.weight", {n_embd, n_vocab}, spec.type, embeddings);
  for (uint32_t layer = 0; layer < spec.layers; ++layer) {
    AddLayer(spec, layer, RandomLayer(spec, layer, steering, gen), w);
  }
  w.AddTensor("output_norm.weight", {n_embd}, TensorType::kF32, std::vector<float>(n_embd, 1.0f));
  std::vector<float> output = gen.Random(n_embd * n_vocab);
  steering.AdjustOutput(output);
  if (spec.successor_chain) AddSuccessorChain(spec, vocab, embeddings, output);
  w.AddTensor("output.weight", {n_embd, n_vocab}, spec.type, output);
  // A reranker's classifier head: one score from the last position.
  if (spec.reranker) {
    w.AddTensor("cls.output.weight", {n_embd, 1}, spec.type, gen.Random(n_embd));
  }
}

// The file-reader model's designed weights (tools/file_reader_weights.h):
// layer 0's attention finds the tool markers, everything else adds nothing.
void AddFileReaderWeights(const SyntheticModelSpec& spec, const SyntheticVocab& vocab,
                          GgufWriter& w) {
  const uint64_t n_vocab = vocab.tokens.size();
  const uint64_t n_embd = spec.embedding;
  w.AddTensor("token_embd.weight", {n_embd, n_vocab}, spec.type, FileReaderEmbeddings(spec, vocab));
  for (uint32_t layer = 0; layer < spec.layers; ++layer) {
    LayerWeights m = ZeroLayer(spec);
    if (layer == 0) {
      FileReaderAttention a = FileReaderLayer0(spec);
      m.q = std::move(a.q);
      m.k = std::move(a.k);
      m.v = std::move(a.v);
      m.attn_output = std::move(a.attn_output);
    }
    AddLayer(spec, layer, m, w);
  }
  w.AddTensor("output_norm.weight", {n_embd}, TensorType::kF32, std::vector<float>(n_embd, 1.0f));
  w.AddTensor("output.weight", {n_embd, n_vocab}, spec.type, FileReaderOutput(spec, vocab));
}

// The quote-brace model's designed weights (tools/quote_brace_weights.h).
void AddQuoteBraceWeights(const SyntheticModelSpec& spec, const SyntheticVocab& vocab,
                          GgufWriter& w) {
  const uint64_t n_vocab = vocab.tokens.size();
  const uint64_t n_embd = spec.embedding;
  w.AddTensor("token_embd.weight", {n_embd, n_vocab}, spec.type, QuoteBraceEmbeddings(spec, vocab));
  const LayerWeights zero = ZeroLayer(spec);
  for (uint32_t layer = 0; layer < spec.layers; ++layer) AddLayer(spec, layer, zero, w);
  w.AddTensor("output_norm.weight", {n_embd}, TensorType::kF32, std::vector<float>(n_embd, 1.0f));
  w.AddTensor("output.weight", {n_embd, n_vocab}, spec.type, QuoteBraceOutput(spec, vocab));
}

}  // namespace

Result<SyntheticModelSpec> PresetSpec(const std::string& preset) {
  SyntheticModelSpec spec;  // the defaults are the tiny preset
  if (preset == "tiny") return spec;
  if (preset == "tiny-embed") {
    spec.name = "zest-synthetic-embed";
    spec.embedding_model = true;
    return spec;
  }
  if (preset == "tiny-rerank") {
    spec.name = "zest-synthetic-rerank";
    spec.reranker = true;
    return spec;
  }
  if (preset == "tiny-quote-brace") {
    spec.name = "zest-synthetic-quote-brace";
    spec.quote_brace = true;
    return spec;
  }
  if (preset == "tiny-file-reader") {
    // As narrow as its dimensions allow, one layer: agents' prompts run to
    // 50,000 tokens, and attention over them is most of the work.
    spec = {.name = "zest-synthetic-file-reader",
            .layers = 1,
            .embedding = 16,
            .heads = 2,
            .kv_heads = 2,
            .feed_forward = 16,
            .file_reader = true};
    return spec;
  }
  if (preset == "small") {
    spec = {.name = "zest-synthetic-small",
            .layers = 6,
            .embedding = 512,
            .heads = 8,
            .kv_heads = 4,
            .feed_forward = 1408,
            .context = 4096,
            .type = TensorType::kF16};
    return spec;
  }
  if (preset == "bench") {
    spec = {.name = "zest-synthetic-bench",
            .layers = 24,
            .embedding = 1280,
            .heads = 20,
            .kv_heads = 4,
            .feed_forward = 4096,
            .context = 4096,
            .type = TensorType::kQ8_0};
    return spec;
  }
  if (preset == "bench-85m") {
    // The gateway-overhead benchmark's model (issue 45): small enough that
    // a 1-token answer takes a few milliseconds, so what the gateway adds
    // shows, and Q8_0 like a model people serve. About 85M parameters.
    spec = {.name = "zest-synthetic-bench-85m",
            .layers = 12,
            .embedding = 768,
            .heads = 12,
            .kv_heads = 4,
            .feed_forward = 2400,
            .context = 4096,
            .type = TensorType::kQ8_0};
    return spec;
  }
  return NotFound("unknown preset '" + preset +
                  "' (tiny, tiny-embed, tiny-rerank, tiny-quote-brace, tiny-file-reader, small, "
                  "bench, bench-85m)");
}

SyntheticModelSpec DraftSpecFor(SyntheticModelSpec& target, uint32_t layers, bool chance) {
  target.successor_chain = true;
  SyntheticModelSpec draft = target;
  draft.name = target.name + "-draft";
  draft.layers = layers;
  // Any other seed: the two chains then share a successor only by chance.
  if (chance) draft.chain_seed = target.chain_seed + 1;
  return draft;
}

Status WriteSyntheticModel(const SyntheticModelSpec& spec, const std::filesystem::path& path) {
  ZEST_RETURN_IF_ERROR(Validate(spec));
  const SyntheticVocab vocab = spec.file_reader ? FileReaderVocab() : BuildSyntheticVocab();
  GgufWriter w;
  AddModelMetadata(spec, static_cast<uint32_t>(vocab.tokens.size()), w);
  AddTokenizer(spec, vocab, w);
  if (spec.quote_brace) {
    AddQuoteBraceWeights(spec, vocab, w);
  } else if (spec.file_reader) {
    AddFileReaderWeights(spec, vocab, w);
  } else {
    AddRandomWeights(spec, vocab, w);
  }
  return w.Write(path);
}

}  // namespace zest::tools
