// The file-reader model read back from its file and run by hand, as
// llama.cpp runs it: RMS norm, layer 0's attention with RoPE (the other
// matrices are checked to be zero, so they add nothing), the final norm, the
// output rows. Prompts are a few tokens plus a stretch of unmarked ones
// standing for the rest of an agent's prompt (their keys and values are
// zero: checked). What it calls for each client's tool list, with
// llama-server's tool-call grammar emulated as the set of tokens it allows
// at each step, and what it answers. tests/agents/ run it in the real
// llama-server under the real grammar.
#include "tools/file_reader_weights.h"

#include <gtest/gtest.h>

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
constexpr std::string_view kWordStart = "\xE2\x96\x81";
constexpr const char* kTrigger = "<tool_call>\n";  // llama-server's lazy grammar starts here

uint64_t IdOf(const SyntheticVocab& vocab, std::string_view piece) {
  return static_cast<uint64_t>(std::find(vocab.tokens.begin(), vocab.tokens.end(), piece) -
                               vocab.tokens.begin());
}

// The text of a token, as llama.cpp's detokenizer writes it ("▁" a space).
std::string TextOf(const SyntheticVocab& vocab, uint64_t token) {
  if (vocab.types[token] == kTokenByte) return std::string(1, static_cast<char>(token - Byte(0)));
  if (vocab.types[token] == kTokenControl) return "";
  std::string text = vocab.tokens[token];
  for (size_t at; (at = text.find(kWordStart)) != std::string::npos;) {
    text.replace(at, kWordStart.size(), " ");
  }
  return text;
}

// A token at a position of the context.
struct At {
  uint64_t token;
  uint64_t position;
};

class FileReaderModel {
 public:
  explicit FileReaderModel(TensorType type, uint32_t context = 65536) {
    spec_ = *PresetSpec("tiny-file-reader");
    spec_.type = type;
    spec_.context = context;
    zest::testing::TempDir dir("reader");
    const fs::path path = dir.path() / "reader.gguf";
    EXPECT_TRUE(WriteSyntheticModel(spec_, path).ok());
    std::ifstream in(path, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), {});
    Result<models::GgufFile> file = models::ParseGguf(bytes_);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    file_ = *file;
    embeddings_ = Tensor("token_embd.weight");
    q_ = Tensor("blk.0.attn_q.weight");
    k_ = Tensor("blk.0.attn_k.weight");
    v_ = Tensor("blk.0.attn_v.weight");
    o_ = Tensor("blk.0.attn_output.weight");
    output_ = Tensor("output.weight");
  }

  std::vector<float> Tensor(const std::string& name) const {
    const models::GgufTensorInfo* t = file_.FindTensor(name);
    EXPECT_NE(t, nullptr) << name;
    if (t == nullptr) return {};
    const std::span<const char> data(bytes_.data() + file_.data_offset + t->offset, t->bytes);
    if (t->type == static_cast<uint32_t>(TensorType::kF16)) return DecodeF16(data);
    std::vector<float> values(t->bytes / sizeof(float));
    std::memcpy(values.data(), data.data(), t->bytes);
    return values;
  }

  // The logits at the last of `context`, with `unmarked` more positions of
  // token `filler` before it (their scores and values are zero: callers
  // check KeyAndValueAreZero).
  std::vector<float> Logits(const std::vector<At>& context, uint64_t unmarked = 0) const {
    const uint64_t n = spec_.embedding;
    const uint64_t hd = n / spec_.heads;
    const uint64_t kv_width = hd * spec_.kv_heads;
    const At last = context.back();
    const std::vector<float> query = Rotated(MatVec(q_, n, Normed(last.token)), last.position);
    std::vector<float> heads(n, 0.0f);
    for (uint64_t h = 0; h < spec_.heads; ++h) {
      const uint64_t kv = h / (spec_.heads / spec_.kv_heads);
      std::vector<double> scores;
      for (const At& at : context) {
        const std::vector<float> key = Rotated(MatVec(k_, kv_width, Normed(at.token)), at.position);
        double dot = 0;
        for (uint64_t i = 0; i < hd; ++i) dot += query[h * hd + i] * key[kv * hd + i];
        scores.push_back(dot / std::sqrt(static_cast<double>(hd)));
      }
      const double top = std::max(0.0, *std::max_element(scores.begin(), scores.end()));
      double total = static_cast<double>(unmarked) * std::exp(-top);
      for (double& s : scores) total += (s = std::exp(s - top));
      for (size_t m = 0; m < context.size(); ++m) {
        const std::vector<float> value = MatVec(v_, kv_width, Normed(context[m].token));
        for (uint64_t i = 0; i < hd; ++i) {
          heads[h * hd + i] += static_cast<float>(scores[m] / total) * value[kv * hd + i];
        }
      }
    }
    std::vector<float> x(embeddings_.begin() + static_cast<std::ptrdiff_t>(last.token * n),
                         embeddings_.begin() + static_cast<std::ptrdiff_t>((last.token + 1) * n));
    const std::vector<float> attention = MatVec(o_, n, heads);
    for (uint64_t d = 0; d < n; ++d) x[d] += attention[d];
    return MatVec(output_, output_.size() / n, Norm(x));
  }

  bool KeyAndValueAreZero(uint64_t token) const {
    const uint64_t kv_width = spec_.embedding / spec_.heads * spec_.kv_heads;
    for (const auto* m : {&k_, &v_}) {
      const std::vector<float> out = MatVec(*m, kv_width, Normed(token));
      if (std::any_of(out.begin(), out.end(), [](float f) { return f != 0.0f; })) return false;
    }
    return true;
  }

  const SyntheticModelSpec& spec() const { return spec_; }
  const models::GgufFile& file() const { return file_; }

 private:
  std::vector<float> Norm(std::vector<float> x) const {
    double squares = 0;
    for (float f : x) squares += f * f;
    const double eps = file_.GetFloat("llama.attention.layer_norm_rms_epsilon");
    const double scale = 1.0 / std::sqrt(squares / static_cast<double>(x.size()) + eps);
    for (float& f : x) f = static_cast<float>(f * scale);
    return x;
  }
  std::vector<float> Normed(uint64_t token) const {
    const uint64_t n = spec_.embedding;
    return Norm({embeddings_.begin() + static_cast<std::ptrdiff_t>(token * n),
                 embeddings_.begin() + static_cast<std::ptrdiff_t>((token + 1) * n)});
  }
  // `rows` outputs of matrix `m` (GGUF layout: one row per output) times `x`.
  static std::vector<float> MatVec(const std::vector<float>& m, uint64_t rows,
                                   const std::vector<float>& x) {
    std::vector<float> out(rows, 0.0f);
    for (uint64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (uint64_t c = 0; c < x.size(); ++c) sum += m[r * x.size() + c] * x[c];
      out[r] = static_cast<float>(sum);
    }
    return out;
  }
  // llama's RoPE (adjacent pairs in each head) at `position`.
  std::vector<float> Rotated(std::vector<float> x, uint64_t position) const {
    const uint64_t hd = spec_.embedding / spec_.heads;
    const double base = file_.GetFloat("llama.rope.freq_base");
    for (uint64_t head = 0; head < x.size() / hd; ++head) {
      for (uint64_t i = 0; i < hd / 2; ++i) {
        const double angle =
            static_cast<double>(position) *
            std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(hd));
        float& a = x[head * hd + 2 * i];
        float& b = x[head * hd + 2 * i + 1];
        const double a0 = a, b0 = b;
        a = static_cast<float>(a0 * std::cos(angle) - b0 * std::sin(angle));
        b = static_cast<float>(a0 * std::sin(angle) + b0 * std::cos(angle));
      }
    }
    return x;
  }

  SyntheticModelSpec spec_;
  std::string bytes_;
  models::GgufFile file_;
  std::vector<float> embeddings_, q_, k_, v_, o_, output_;
};

// A tool as the grammar sees it: its name and its first required key.
struct Tool {
  std::string name;
  std::string key;
};

// Whether llama-server's tool-call grammar (as built for the synthetic
// template: see file_reader_weights.h) can still complete `text` into one
// call of one of `tools` with one string argument; `done` asks whether the
// text is a whole call. Stricter than the grammar (no whitespace between
// JSON tokens, no optional arguments, one call), which only narrows what
// the model may pick.
bool GrammarAllows(const std::vector<Tool>& tools, const std::string& text, bool done = false) {
  const size_t start = text.find(kTrigger);
  if (start == std::string::npos) return true;  // lazy: free until the trigger
  const std::string call = text.substr(start);
  const std::string end = "\"}}</tool_call>";
  for (const Tool& tool : tools) {
    const std::string head = std::string(kTrigger) + "{\"name\": \"" + tool.name +
                             "\", \"arguments\": {\"" + tool.key + "\": \"";
    if (call.size() <= head.size()) {
      if (!done && head.starts_with(call)) return true;
      continue;
    }
    if (!call.starts_with(head)) continue;
    const std::string rest = call.substr(head.size());
    const size_t quote = rest.find('"');
    if (quote == std::string::npos) {
      if (!done) return true;
      continue;
    }
    const std::string tail = rest.substr(quote);
    if (done ? tail == end : end.starts_with(tail)) return true;
  }
  return false;
}

// Greedy decoding after `prompt` (one token a position from 0, then
// `unmarked` positions, then the last token at `last_position`), each step
// the best token the grammar for `tools` allows; the text up to the end of
// turn, and the smallest gap between the best allowed token and the next.
struct Decoded {
  std::string text;
  float smallest_gap = 1e9f;
  bool ended = false;
};

Decoded Decode(const FileReaderModel& model, const SyntheticVocab& vocab,
               const std::vector<uint64_t>& prompt, const std::vector<Tool>& tools,
               uint64_t unmarked = 0, uint64_t last_position = 0) {
  std::vector<At> context;
  for (size_t i = 0; i < prompt.size(); ++i) context.push_back({prompt[i], i});
  if (last_position > 0) context.back().position = last_position;
  Decoded out;
  for (int step = 0; step < 16 && !out.ended; ++step) {
    const std::vector<float> logits = model.Logits(context, unmarked);
    uint64_t best = logits.size();
    float second = -1e9f;
    for (uint64_t t = 0; t < logits.size(); ++t) {
      const bool end = t == vocab.im_end_id || t == vocab.eos_id;
      if (end ? !GrammarAllows(tools, out.text, true)
              : !GrammarAllows(tools, out.text + TextOf(vocab, t))) {
        continue;
      }
      if (best == logits.size() || logits[t] > logits[best]) {
        if (best != logits.size()) second = std::max(second, logits[best]);
        best = t;
      } else {
        second = std::max(second, logits[t]);
      }
    }
    out.smallest_gap = std::min(out.smallest_gap, logits[best] - second);
    if (best == vocab.im_end_id || best == vocab.eos_id) {
      out.ended = true;
    } else {
      out.text += TextOf(vocab, best);
      context.push_back({best, context.back().position + 1});
    }
  }
  return out;
}

// The prompt's shape the template gives (synthetic_vocab.cc): a system turn
// listing tools (<tools>), a user turn, maybe an earlier call and its result,
// and the generation prompt, whose last token is "\n".
std::vector<uint64_t> Prompt(const SyntheticVocab& vocab, bool tools, bool answered) {
  const uint64_t word = IdOf(vocab, std::string(kWordStart) + "the");
  std::vector<uint64_t> p = {vocab.bos_id, vocab.im_start_id, word, Byte('\n')};
  if (tools) p.insert(p.end(), {vocab.tools_id, word, Byte('{'), Byte('}')});
  p.insert(p.end(), {vocab.im_end_id, Byte('\n'), vocab.im_start_id, word, Byte('\n'), word});
  if (answered) {
    p.insert(p.end(), {vocab.im_end_id,
                       Byte('\n'),
                       vocab.im_start_id,
                       word,
                       Byte('\n'),
                       vocab.tool_call_id,
                       Byte('\n'),
                       Byte('{'),
                       Byte('}'),
                       Byte('\n'),
                       vocab.tool_call_end_id,
                       vocab.im_end_id,
                       Byte('\n'),
                       vocab.im_start_id,
                       word,
                       Byte('\n'),
                       vocab.tool_response_id,
                       Byte('\n'),
                       word,
                       Byte('\n')});
  }
  p.insert(p.end(), {vocab.im_end_id, Byte('\n'), vocab.im_start_id, word, Byte('\n')});
  return p;
}

// The five clients' tool lists (names, and the read tool's first required
// key) as their recordings in tests/fixtures/agents/ hold them, and the call
// each must get.
const struct Client {
  const char* name;
  std::vector<Tool> tools;
  const char* call;
} kClients[] = {
    {"Claude Code",
     {{"Agent", "prompt"},
      {"Bash", "command"},
      {"Edit", "file_path"},
      {"Glob", "pattern"},
      {"Grep", "pattern"},
      {"ListAgents", "x"},
      {"Read", "file_path"},
      {"ReportFindings", "x"},
      {"ScheduleWakeup", "x"},
      {"Skill", "x"},
      {"ToolSearch", "x"},
      {"Workflow", "x"},
      {"DeferredToolPlaceholder", "x"},
      {"Write", "file_path"}},
     R"({"name": "Read", "arguments": {"file_path": "/scratch/a.txt"}})"},
    {"Codex CLI",
     {{"exec_command", "cmd"},
      {"write_stdin", "session_id"},
      {"request_user_input", "x"},
      {"view_image", "path"},
      {"multi_agent_v1__spawn_agent", "x"},
      {"get_goal", "x"},
      {"create_goal", "x"},
      {"update_goal", "x"}},
     R"({"name": "exec_command", "arguments": {"cmd": "cat /scratch/a.txt"}})"},
    {"Continue CLI",
     {{"Read", "filepath"},
      {"Write", "filepath"},
      {"List", "dirpath"},
      {"Bash", "command"},
      {"Fetch", "url"},
      {"Checklist", "x"},
      {"CheckBackgroundJob", "x"},
      {"AskQuestion", "x"},
      {"Edit", "x"},
      {"Exit", "x"},
      {"Skills", "x"}},
     R"({"name": "Read", "arguments": {"filepath": "/scratch/a.txt"}})"},
    {"opencode",
     {{"bash", "command"},
      {"edit", "filePath"},
      {"glob", "pattern"},
      {"grep", "pattern"},
      {"read", "filePath"},
      {"skill", "name"},
      {"task", "x"},
      {"todowrite", "todos"},
      {"webfetch", "url"},
      {"write", "content"}},
     R"({"name": "read", "arguments": {"filePath": "/scratch/a.txt"}})"},
    {"Qwen Code",
     {{"agent", "x"},
      {"edit", "file_path"},
      {"get_goal", "x"},
      {"glob", "pattern"},
      {"grep_search", "pattern"},
      {"list_agents", "x"},
      {"notebook_edit", "x"},
      {"read_file", "file_path"},
      {"run_shell_command", "command"},
      {"skill", "x"},
      {"tool_call", "x"},
      {"tool_search", "x"},
      {"update_goal", "x"},
      {"write_file", "file_path"}},
     R"({"name": "read_file", "arguments": {"file_path": "/scratch/a.txt"}})"},
};

TEST(FileReaderWeightsTest, OnlyLayerZeroAttentionIsSet) {
  const FileReaderModel model(TensorType::kF32);
  for (uint32_t layer = 0; layer < model.spec().layers; ++layer) {
    const std::string prefix = "blk." + std::to_string(layer) + ".";
    for (const char* name :
         {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
      const std::vector<float> w = model.Tensor(prefix + name + ".weight");
      ASSERT_FALSE(w.empty());
      const bool zero = std::all_of(w.begin(), w.end(), [](float v) { return v == 0.0f; });
      EXPECT_EQ(zero, layer > 0 || std::string(name).starts_with("ffn")) << prefix << name;
    }
  }
  EXPECT_TRUE(model.file().GetBool("zest.synthetic"));
  EXPECT_EQ(model.file().GetString("general.name"), "zest-synthetic-file-reader");
}

TEST(FileReaderWeightsTest, VocabularyAddsTheCallsPiecesAfterTheSyntheticOnes) {
  const SyntheticVocab base = BuildSyntheticVocab();
  const SyntheticVocab vocab = FileReaderVocab();
  ASSERT_EQ(vocab.tokens.size(), base.tokens.size() + 14);
  EXPECT_TRUE(std::equal(base.tokens.begin(), base.tokens.end(), vocab.tokens.begin()));
  EXPECT_TRUE(std::equal(base.types.begin(), base.types.end(), vocab.types.begin()));
  EXPECT_EQ(std::set<std::string>(vocab.tokens.begin(), vocab.tokens.end()).size(),
            vocab.tokens.size());
  for (size_t i = base.tokens.size(); i < vocab.tokens.size(); ++i) {
    EXPECT_EQ(vocab.types[i], kTokenNormal) << vocab.tokens[i];
  }
  EXPECT_EQ(TextOf(vocab, IdOf(vocab, kAnswerPiece)), kReaderAnswer);
  EXPECT_EQ(TextOf(vocab, IdOf(vocab, kPathPiece)), kReadPath);
}

TEST(FileReaderWeightsTest, CallsEachClientsReadToolOnTheScratchFile) {
  const SyntheticVocab vocab = FileReaderVocab();
  for (TensorType type : {TensorType::kF32, TensorType::kF16}) {
    const FileReaderModel model(type);
    for (const Client& client : kClients) {
      const Decoded out = Decode(model, vocab, Prompt(vocab, true, false), client.tools);
      EXPECT_EQ(out.text, std::string("<tool_call>\n") + client.call + "</tool_call>")
          << client.name;
      EXPECT_TRUE(out.ended) << client.name;
      // Certain under sampling at temperature 1 too (e^-15 per token).
      EXPECT_GT(out.smallest_gap, 15.0f) << client.name;
    }
  }
}

TEST(FileReaderWeightsTest, AnswersOnceTheCallIsAnsweredAndWithoutTools) {
  const SyntheticVocab vocab = FileReaderVocab();
  const FileReaderModel model(TensorType::kF16);
  for (const bool tools : {false, true}) {
    const Decoded out = Decode(model, vocab, Prompt(vocab, tools, true), kClients[0].tools);
    EXPECT_EQ(out.text, kReaderAnswer) << tools;
    EXPECT_TRUE(out.ended);
    EXPECT_GT(out.smallest_gap, 15.0f);
  }
  const Decoded plain = Decode(model, vocab, Prompt(vocab, false, false), {});
  EXPECT_EQ(plain.text, kReaderAnswer);
  EXPECT_TRUE(plain.ended);
}

TEST(FileReaderWeightsTest, FindsTheToolsAtTheStartOfAFullContext) {
  const SyntheticVocab vocab = FileReaderVocab();
  const FileReaderModel model(TensorType::kF16);
  const uint64_t filler = IdOf(vocab, std::string(kWordStart) + "the");
  ASSERT_TRUE(model.KeyAndValueAreZero(filler));
  ASSERT_TRUE(model.KeyAndValueAreZero(Byte('\n')));
  // <tools> at position 4, 65,000 unmarked positions, the generation
  // prompt's "\n" at the context's last position.
  const uint64_t last = model.spec().context - 1;
  for (const bool answered : {false, true}) {
    const Decoded out =
        Decode(model, vocab, Prompt(vocab, true, answered), kClients[1].tools, 65000, last);
    EXPECT_EQ(out.text, answered
                            ? std::string(kReaderAnswer)
                            : std::string("<tool_call>\n") + kClients[1].call + "</tool_call>");
    EXPECT_GT(out.smallest_gap, 15.0f);
  }
}

TEST(FileReaderWeightsTest, RefusesShapesAndKindsItCannotBe) {
  zest::testing::TempDir dir("reader-bad");
  const fs::path path = dir.path() / "bad.gguf";
  SyntheticModelSpec spec = *PresetSpec("tiny-file-reader");
  spec.kv_heads = 1;
  EXPECT_EQ(WriteSyntheticModel(spec, path).code(), ErrorCode::kInvalidArgument);
  spec = *PresetSpec("tiny-file-reader");
  spec.embedding = 8;
  spec.heads = 2;
  EXPECT_EQ(WriteSyntheticModel(spec, path).code(), ErrorCode::kInvalidArgument);
  spec = *PresetSpec("tiny-file-reader");
  spec.successor_chain = true;
  EXPECT_EQ(WriteSyntheticModel(spec, path).code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace zest::tools
