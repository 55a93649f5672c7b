// The quote-brace model read back from its file and run by hand (the layers
// are checked to add nothing, so the logits follow from the embedding, the
// final norm and the output rows): what it prefers after each token, and
// the answers that follow alone and under a JSON object's constraints. The
// integration tests run it in the real llama-server.
#include "tools/quote_brace_weights.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "core/testing/temp_dir.h"
#include "models/gguf_reader.h"
#include "tools/tensor_encoding.h"

namespace zest::tools {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t Byte(char c) { return kFirstByteToken + static_cast<unsigned char>(c); }

// The word piece ":" (the byte token <0x3A> is the other ':').
uint64_t ColonPiece(const SyntheticVocab& vocab) {
  return static_cast<uint64_t>(std::find(vocab.tokens.begin(), vocab.tokens.end(), ":") -
                               vocab.tokens.begin());
}

class QuoteBraceModel {
 public:
  explicit QuoteBraceModel(TensorType type) {
    zest::testing::TempDir dir("qb");
    const fs::path path = dir.path() / "qb.gguf";
    SyntheticModelSpec spec = *PresetSpec("tiny-quote-brace");
    spec.type = type;
    spec_ = spec;
    EXPECT_TRUE(WriteSyntheticModel(spec, path).ok());
    std::ifstream in(path, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), {});
    Result<models::GgufFile> file = models::ParseGguf(bytes_);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    file_ = *file;
  }

  std::vector<float> Tensor(const std::string& name) const {
    const models::GgufTensorInfo* t = file_.FindTensor(name);
    EXPECT_NE(t, nullptr) << name;
    if (t == nullptr) return {};
    const std::span<const char> data(bytes_.data() + file_.data_offset + t->offset, t->bytes);
    if (t->type == static_cast<uint32_t>(TensorType::kF16)) return DecodeF16(data);
    if (t->type == static_cast<uint32_t>(TensorType::kQ8_0)) return DecodeQ8_0(data);
    std::vector<float> values(t->bytes / sizeof(float));
    std::memcpy(values.data(), data.data(), t->bytes);
    return values;
  }

  // The logits after `token`, as llama.cpp computes them when the layers
  // add nothing: RMS norm of its embedding (output_norm is all ones), then
  // the output rows.
  std::vector<float> LogitsAfter(uint64_t token) const {
    const uint64_t n = spec_.embedding;
    const std::vector<float> embeddings = Tensor("token_embd.weight");
    const std::vector<float> output = Tensor("output.weight");
    std::vector<float> x(embeddings.begin() + static_cast<std::ptrdiff_t>(token * n),
                         embeddings.begin() + static_cast<std::ptrdiff_t>((token + 1) * n));
    double squares = 0;
    for (float v : x) squares += v * v;
    const double eps = file_.GetFloat("llama.attention.layer_norm_rms_epsilon");
    const double scale = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
    std::vector<float> logits(output.size() / n);
    for (uint64_t t = 0; t < logits.size(); ++t) {
      double sum = 0;
      for (uint64_t d = 0; d < n; ++d) sum += output[t * n + d] * x[d] * scale;
      logits[t] = static_cast<float>(sum);
    }
    return logits;
  }

  // The best token after `token` among `allowed` (all tokens when empty).
  uint64_t Best(uint64_t token, const std::set<uint64_t>& allowed = {}) const {
    const std::vector<float> logits = LogitsAfter(token);
    uint64_t best = logits.size();
    for (uint64_t t = 0; t < logits.size(); ++t) {
      if (!allowed.empty() && !allowed.contains(t)) continue;
      if (best == logits.size() || logits[t] > logits[best]) best = t;
    }
    return best;
  }

  const SyntheticModelSpec& spec() const { return spec_; }
  const models::GgufFile& file() const { return file_; }

 private:
  SyntheticModelSpec spec_;
  std::string bytes_;
  models::GgufFile file_;
};

TEST(QuoteBraceWeightsTest, LayersAddNothing) {
  const QuoteBraceModel model(TensorType::kF32);
  for (uint32_t layer = 0; layer < model.spec().layers; ++layer) {
    const std::string prefix = "blk." + std::to_string(layer) + ".";
    for (const char* name :
         {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
      const std::vector<float> w = model.Tensor(prefix + name + ".weight");
      ASSERT_FALSE(w.empty());
      EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](float v) { return v == 0.0f; }))
          << prefix << name;
    }
  }
  EXPECT_TRUE(model.file().GetBool("zest.synthetic"));
  EXPECT_EQ(model.file().GetString("general.name"), "zest-synthetic-quote-brace");
}

TEST(QuoteBraceWeightsTest, PrefersQuoteThenBraceThenEndOfTurnByWideMargins) {
  const SyntheticVocab vocab = BuildSyntheticVocab();
  const uint64_t colon = ColonPiece(vocab);
  for (TensorType type : {TensorType::kF32, TensorType::kF16}) {
    const QuoteBraceModel model(type);
    const struct {
      uint64_t after;
      uint64_t first;
      std::set<uint64_t> second;
    } cases[] = {
        {Byte('\n'), Byte('"'), {Byte('{')}},  // the generation prompt's last token
        {Byte('{'), Byte('"'), {Byte('{')}},       {vocab.word_start_id, Byte('"'), {Byte('{')}},
        {colon, Byte('"'), {Byte('{')}},           {Byte('"'), Byte('}'), {Byte(':'), colon}},
        {Byte('}'), vocab.im_end_id, {Byte('"')}},
    };
    for (const auto& c : cases) {
      const std::vector<float> logits = model.LogitsAfter(c.after);
      EXPECT_NEAR(logits[c.first], kPreferredLogit, 0.1f) << vocab.tokens[c.after];
      for (uint64_t t = 0; t < logits.size(); ++t) {
        if (t == c.first) continue;
        const float want = c.second.contains(t) ? kSecondLogit : 0.0f;
        EXPECT_NEAR(logits[t], want, 0.1f) << vocab.tokens[t] << " after " << vocab.tokens[c.after];
      }
    }
  }
}

TEST(QuoteBraceWeightsTest, AloneWritesNoJsonUnderAnObjectGrammarAnObject) {
  const SyntheticVocab vocab = BuildSyntheticVocab();
  const QuoteBraceModel model(TensorType::kQ8_0);  // the coarsest encoding
  auto text = [&](const std::vector<uint64_t>& tokens) {
    std::string out;
    for (uint64_t t : tokens) {
      if (t == vocab.im_end_id) break;
      EXPECT_EQ(vocab.types[t], kTokenByte) << vocab.tokens[t];
      out += static_cast<char>(t - kFirstByteToken);
    }
    return out;
  };
  // Alone: greedy from the generation prompt's "\n" until the end of turn.
  std::vector<uint64_t> alone = {Byte('\n')};
  while (alone.back() != vocab.im_end_id && alone.size() < 10)
    alone.push_back(model.Best(alone.back()));
  alone.erase(alone.begin());
  EXPECT_EQ(text(alone), "\"}");
  // Under a JSON object's constraints, step by step: what the grammar
  // allows at each point (whitespace aside), and the best of it.
  const uint64_t colon = ColonPiece(vocab);
  const uint64_t quote = Byte('"'), close = Byte('}'), end = vocab.im_end_id;
  const std::set<uint64_t> in_string = {quote, close, Byte('a'), Byte(':'), Byte('{')};
  const struct {
    std::set<uint64_t> allowed;
    uint64_t want;
  } steps[] = {
      {{Byte('{')}, Byte('{')},                           // an object starts
      {{quote, close, Byte(' ')}, quote},                 // a key, or the end of the object
      {in_string, close},                                 // the key's text
      {in_string, quote},                                 // (no end of turn inside a string)
      {{Byte(':'), colon, Byte(' ')}, 0},                 // the colon (either token)
      {{quote, Byte('1'), Byte('{'), Byte('t')}, quote},  // a value
      {in_string, close},
      {in_string, quote},
      {{close, Byte(','), Byte(' ')}, close},  // the end of the object
      {{end, Byte(' ')}, end},
  };
  std::vector<uint64_t> answer = {Byte('\n')};
  for (const auto& step : steps) {
    const uint64_t next = model.Best(answer.back(), step.allowed);
    if (step.want == 0) {
      EXPECT_TRUE(next == colon || next == Byte(':')) << vocab.tokens[next];
    } else {
      EXPECT_EQ(next, step.want) << vocab.tokens[next] << " after " << text(answer);
    }
    answer.push_back(next == colon ? Byte(':') : next);
  }
  answer.erase(answer.begin());
  EXPECT_EQ(text(answer), "{\"}\":\"}\"}");
}

TEST(QuoteBraceWeightsTest, RefusesShapesAndKindsItCannotBe) {
  SyntheticModelSpec spec = *PresetSpec("tiny-quote-brace");
  spec.embedding_model = true;
  zest::testing::TempDir dir("qb-bad");
  const fs::path path = dir.path() / "qb_bad.gguf";
  EXPECT_EQ(WriteSyntheticModel(spec, path).code(), ErrorCode::kInvalidArgument);
  spec = *PresetSpec("tiny-quote-brace");
  spec.embedding = 2;
  spec.heads = 1;
  spec.kv_heads = 1;
  EXPECT_EQ(WriteSyntheticModel(spec, path).code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace zest::tools
