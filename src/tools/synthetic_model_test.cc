#include "tools/synthetic_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include "core/testing/temp_dir.h"
#include "models/gguf_reader.h"
#include "tools/steering_weights.h"
#include "tools/successor_chain.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {
namespace {

namespace fs = std::filesystem;

// Each test writes its models in a directory of its own.
class SyntheticModelTest : public ::testing::Test {
 protected:
  fs::path TempPath(const std::string& name) const {
    return dir_.path() / ("zest_synth_" + name + ".gguf");
  }
  zest::testing::TempDir dir_{"synth"};
};

TEST(SyntheticVocabTest, HasControlByteAndWordTokens) {
  const SyntheticVocab v = BuildSyntheticVocab();
  ASSERT_EQ(v.tokens.size(), v.scores.size());
  ASSERT_EQ(v.tokens.size(), v.types.size());
  EXPECT_EQ(v.tokens[v.unknown_id], "<unk>");
  EXPECT_EQ(v.types[v.unknown_id], kTokenUnknown);
  EXPECT_EQ(v.tokens[v.bos_id], "<s>");
  EXPECT_EQ(v.tokens[v.eos_id], "</s>");
  EXPECT_EQ(v.tokens[v.im_start_id], "<|im_start|>");
  EXPECT_EQ(v.types[v.im_end_id], kTokenControl);
  EXPECT_EQ(v.tokens[5], "<0x00>");
  EXPECT_EQ(v.tokens[5 + 0x0A], "<0x0A>");
  EXPECT_EQ(v.types[5 + 255], kTokenByte);
  EXPECT_GT(v.tokens.size(), 500u);
  EXPECT_EQ(std::set<std::string>(v.tokens.begin(), v.tokens.end()).size(), v.tokens.size());
  // Word pieces have strictly descending scores, and every piece's prefix
  // (past the first character) is itself a piece, so SPM merges reach it.
  const std::set<std::string> all(v.tokens.begin(), v.tokens.end());
  EXPECT_TRUE(all.count("\xE2\x96\x81the"));
  EXPECT_TRUE(all.count("\xE2\x96\x81th"));
  for (size_t i = 262; i < v.tool_call_id; ++i) {
    EXPECT_EQ(v.types[i], kTokenNormal);
    EXPECT_LT(v.scores[i], v.scores[i - 1]) << v.tokens[i];
  }
  // The tool-call markers, one user-defined token each, last.
  EXPECT_EQ(v.tokens[v.tool_call_id], "<tool_call>");
  EXPECT_EQ(v.tokens[v.tool_call_end_id], "</tool_call>");
  EXPECT_EQ(v.tokens[v.tools_id], "<tools>");
  EXPECT_EQ(v.tokens[v.tool_response_id], "<tool_response>");
  EXPECT_EQ(v.tokens[v.fim_prefix_id], "<|fim_prefix|>");
  EXPECT_EQ(v.types[v.fim_middle_id], kTokenControl);
  EXPECT_EQ(v.fim_middle_id, v.tokens.size() - 1);
  for (uint32_t id : {v.tool_call_id, v.tool_call_end_id, v.tools_id, v.tool_response_id}) {
    EXPECT_EQ(v.types[id], kTokenUserDefined);
  }
  EXPECT_EQ(v.tokens[v.word_start_id], "\xE2\x96\x81");
  EXPECT_EQ(v.tokens[kFirstByteToken + '}'], "<0x7D>");
  EXPECT_NE(ChatMlTemplate().find("<|im_start|>assistant\n"), std::string::npos);
  // Tool calls in the Hermes convention, which llama-server recognises.
  EXPECT_NE(ChatMlTemplate().find("<tool_call>"), std::string::npos);
}

TEST_F(SyntheticModelTest, PresetsAreKnown) {
  EXPECT_TRUE(PresetSpec("tiny").ok());
  EXPECT_TRUE(PresetSpec("tiny-embed")->embedding_model);
  EXPECT_TRUE(PresetSpec("tiny-quote-brace")->quote_brace);
  EXPECT_FALSE(PresetSpec("tiny")->quote_brace);
  EXPECT_EQ(PresetSpec("small")->type, TensorType::kF16);
  EXPECT_EQ(PresetSpec("bench")->type, TensorType::kQ8_0);
  EXPECT_EQ(PresetSpec("huge").status().code(), ErrorCode::kNotFound);
}

// The gateway benchmark's model is the size issue 45 measured: ~85M
// parameters (the formula TinyDescribesItself checks against the file), Q8_0.
TEST_F(SyntheticModelTest, Bench85mIsAbout85MParametersOfQ8) {
  const SyntheticModelSpec spec = PresetSpec("bench-85m").value();
  EXPECT_EQ(spec.type, TensorType::kQ8_0);
  const uint64_t n_vocab = BuildSyntheticVocab().tokens.size();
  const uint64_t e = spec.embedding, kv = e / spec.heads * spec.kv_heads, ff = spec.feed_forward;
  const uint64_t per_layer = 2 * e + 2 * e * e + 2 * e * kv + 3 * e * ff;
  const uint64_t parameters = 2 * e * n_vocab + e + spec.layers * per_layer;
  EXPECT_GT(parameters, 80'000'000u);
  EXPECT_LT(parameters, 90'000'000u);
}

TEST_F(SyntheticModelTest, TinyDescribesItself) {
  const fs::path path = TempPath("tiny");
  SyntheticModelSpec spec = *PresetSpec("tiny");
  spec.type = TensorType::kQ8_0;
  ASSERT_TRUE(WriteSyntheticModel(spec, path).ok());
  Result<models::GgufFile> f = models::ReadGguf(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const models::ModelInfo info = models::Describe(*f);
  EXPECT_EQ(info.architecture, "llama");
  EXPECT_EQ(info.name, spec.name);
  EXPECT_EQ(info.file_type, "Q8_0");
  EXPECT_EQ(info.block_count, spec.layers);
  EXPECT_EQ(info.embedding_length, spec.embedding);
  EXPECT_EQ(info.head_count_kv, spec.kv_heads);
  EXPECT_TRUE(info.has_chat_template);
  EXPECT_TRUE(info.template_tools);  // its template renders tool definitions and calls
  EXPECT_FALSE(info.template_thinking);
  EXPECT_FALSE(info.embedding);
  EXPECT_TRUE(info.synthetic);
  EXPECT_LT(info.file_size, 4u << 20);
  const uint64_t n_vocab = f->GetArraySize("tokenizer.ggml.tokens");
  EXPECT_EQ(f->ArchUint("vocab_size"), n_vocab);
  const uint64_t e = spec.embedding, kv = e / spec.heads * spec.kv_heads, ff = spec.feed_forward;
  const uint64_t per_layer = 2 * e + 2 * e * e + 2 * e * kv + 3 * e * ff;
  EXPECT_EQ(info.parameter_count, 2 * e * n_vocab + e + spec.layers * per_layer);
  EXPECT_EQ(f->FindTensor("blk.1.attn_k.weight")->dims, (std::vector<uint64_t>{e, kv}));
  EXPECT_EQ(f->FindTensor("blk.0.ffn_down.weight")->dims, (std::vector<uint64_t>{ff, e}));
  EXPECT_EQ(f->FindTensor("output_norm.weight")->type, 0u);  // norms stay F32
  EXPECT_EQ(f->FindTensor("output.weight")->type, 8u);
}

// The tool heads' rotary pair turns at most kMaxMarkerTurn over the whole
// context: llama's base 10000 for the presets as they are, more for a long
// context (an agent's prompt of 40k tokens has <tools> near its start).
TEST_F(SyntheticModelTest, RopeBaseKeepsTheToolMarkerInReachOverTheWholeContext) {
  EXPECT_EQ(RopeFreqBase(16, 2048), 10000.0f);  // tiny
  EXPECT_EQ(RopeFreqBase(64, 4096), 10000.0f);  // small, bench
  for (uint32_t context : {32768u, 65536u, 131072u}) {
    const double base = RopeFreqBase(16, context);
    EXPECT_GT(base, 10000.0) << context;
    EXPECT_LE(std::pow(base, -14.0 / 16) * context, kMaxMarkerTurn * 1.0001) << context;
  }
  const fs::path path = TempPath("long");
  SyntheticModelSpec spec = *PresetSpec("tiny");
  spec.context = 65536;
  ASSERT_TRUE(WriteSyntheticModel(spec, path).ok());
  Result<models::GgufFile> f = models::ReadGguf(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_FLOAT_EQ(static_cast<float>(f->GetFloat("llama.rope.freq_base")), RopeFreqBase(16, 65536));
}

TEST_F(SyntheticModelTest, EmbeddingModelHasMeanPooling) {
  const fs::path path = TempPath("embed");
  ASSERT_TRUE(WriteSyntheticModel(*PresetSpec("tiny-embed"), path).ok());
  Result<models::GgufFile> f = models::ReadGguf(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetUint("llama.pooling_type"), 1u);
  EXPECT_TRUE(models::Describe(*f).embedding);
}

TEST_F(SyntheticModelTest, RerankerIsAQwen3WithRankPoolingAndAClassifierHead) {
  const fs::path path = TempPath("rerank");
  ASSERT_TRUE(WriteSyntheticModel(*PresetSpec("tiny-rerank"), path).ok());
  Result<models::GgufFile> f = models::ReadGguf(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->GetString("general.architecture"), "qwen3");
  EXPECT_EQ(f->GetUint("qwen3.pooling_type"), 4u);
  EXPECT_NE(f->GetString("tokenizer.chat_template.rerank").find("{document}"), std::string::npos);
  const models::ModelInfo info = models::Describe(*f);
  EXPECT_TRUE(info.reranker);
  EXPECT_TRUE(info.embedding);
  bool head = false;
  bool q_norm = false;
  for (const auto& t : f->tensors) {
    head = head || t.name == "cls.output.weight";
    q_norm = q_norm || t.name == "blk.0.attn_q_norm.weight";
  }
  EXPECT_TRUE(head);
  EXPECT_TRUE(q_norm);
}

TEST_F(SyntheticModelTest, SameSeedSameBytes) {
  SyntheticModelSpec spec = *PresetSpec("tiny");
  ASSERT_TRUE(WriteSyntheticModel(spec, TempPath("s1")).ok());
  ASSERT_TRUE(WriteSyntheticModel(spec, TempPath("s2")).ok());
  spec.seed = 2;
  ASSERT_TRUE(WriteSyntheticModel(spec, TempPath("s3")).ok());
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(TempPath("s1")), read(TempPath("s2")));
  EXPECT_NE(read(TempPath("s1")), read(TempPath("s3")));
}

TEST_F(SyntheticModelTest, RejectsInconsistentShapes) {
  SyntheticModelSpec spec;
  spec.heads = 3;  // 64 is not a multiple of 3
  EXPECT_EQ(WriteSyntheticModel(spec, TempPath("bad")).code(), ErrorCode::kInvalidArgument);
  spec = SyntheticModelSpec{};
  spec.kv_heads = 3;
  EXPECT_FALSE(WriteSyntheticModel(spec, TempPath("bad")).ok());
  // Narrower than the steering's own dimensions (it wrote past each row).
  spec = SyntheticModelSpec{};
  spec.embedding = 4;
  spec.heads = 1;
  spec.kv_heads = 1;
  EXPECT_EQ(WriteSyntheticModel(spec, TempPath("bad")).code(), ErrorCode::kInvalidArgument);
  spec = SyntheticModelSpec{};
  spec.type = TensorType::kQ8_0;
  spec.feed_forward = 100;
  EXPECT_FALSE(WriteSyntheticModel(spec, TempPath("bad")).ok());
  EXPECT_FALSE(fs::exists(TempPath("bad")));
}

}  // namespace
}  // namespace zest::tools

namespace zest::tools {
namespace {

TEST(SuccessorChainTest, EveryTokenLeadsIntoOneCycleOfWordPieces) {
  const SyntheticVocab vocab = BuildSyntheticVocab();
  const std::vector<uint32_t> cycle = SuccessorCycle(vocab, 1);
  ASSERT_GT(cycle.size(), 100u);
  EXPECT_EQ(std::set<uint32_t>(cycle.begin(), cycle.end()).size(), cycle.size());
  for (uint32_t id : cycle) EXPECT_EQ(vocab.types[id], kTokenNormal);
  // Following the chain from a word piece visits the whole cycle once.
  std::set<uint32_t> seen;
  uint32_t token = cycle.front();
  for (std::size_t i = 0; i < cycle.size(); ++i) seen.insert(token = ChainSuccessor(cycle, token));
  EXPECT_EQ(seen.size(), cycle.size());
  EXPECT_EQ(token, cycle.front());
  // Anything else (a control token, a byte) goes into the cycle.
  EXPECT_TRUE(seen.count(ChainSuccessor(cycle, vocab.im_end_id)));
  // Another seed, another order: a chance draft's.
  EXPECT_NE(SuccessorCycle(vocab, 2), cycle);
}

TEST(SuccessorChainTest, ADraftSharesTheTargetsSeedAndChainUnlessByChance) {
  SyntheticModelSpec target = PresetSpec("bench").value();
  const SyntheticModelSpec draft = DraftSpecFor(target, 1, false);
  EXPECT_TRUE(target.successor_chain && draft.successor_chain);
  EXPECT_EQ(draft.layers, 1u);
  EXPECT_EQ(draft.embedding, target.embedding);
  EXPECT_EQ(draft.seed, target.seed);
  EXPECT_EQ(draft.chain_seed, target.chain_seed);
  EXPECT_EQ(draft.name, "zest-synthetic-bench-draft");
  EXPECT_NE(DraftSpecFor(target, 1, true).chain_seed, target.chain_seed);
}

}  // namespace
}  // namespace zest::tools
