// zest-make-model: writes a synthetic llama GGUF model with random weights
// (tests, the demo, benchmarks). The result loads in llama-server and
// produces gibberish.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>

#include "models/gguf_reader.h"
#include "tools/synthetic_model.h"

namespace {

using zest::tools::SyntheticModelSpec;
using zest::tools::TensorType;

struct Overrides {
  std::string name;
  std::string type;
  uint32_t layers = 0, embedding = 0, heads = 0, kv_heads = 0, ff = 0, context = 0;
  uint64_t seed = 0;
  bool embedding_model = false;
};

void ApplyOverrides(const Overrides& o, SyntheticModelSpec& spec) {
  static const std::map<std::string, TensorType> kTypes = {
      {"f32", TensorType::kF32}, {"f16", TensorType::kF16}, {"q8_0", TensorType::kQ8_0}};
  if (!o.name.empty()) spec.name = o.name;
  if (!o.type.empty()) spec.type = kTypes.at(o.type);  // CLI11 checked the choice
  if (o.layers) spec.layers = o.layers;
  if (o.embedding) spec.embedding = o.embedding;
  if (o.heads) spec.heads = o.heads;
  if (o.kv_heads) spec.kv_heads = o.kv_heads;
  if (o.ff) spec.feed_forward = o.ff;
  if (o.context) spec.context = o.context;
  if (o.seed) spec.seed = o.seed;
  if (o.embedding_model) spec.embedding_model = true;
}

void PrintSummary(const std::string& path) {
  auto file = zest::models::ReadGguf(path);
  if (!file.ok()) {
    std::fprintf(stderr, "warning: cannot read back %s: %s\n", path.c_str(),
                 file.status().ToString().c_str());
    return;
  }
  const zest::models::ModelInfo info = zest::models::Describe(*file);
  std::printf(
      "wrote %s\n  %s '%s', %s, %llu layers, n_embd %llu, heads %llu/%llu kv, "
      "context %llu%s\n  %.1f M parameters, %.1f MiB\n",
      path.c_str(), info.architecture.c_str(), info.name.c_str(), info.file_type.c_str(),
      static_cast<unsigned long long>(info.block_count),
      static_cast<unsigned long long>(info.embedding_length),
      static_cast<unsigned long long>(info.head_count),
      static_cast<unsigned long long>(info.head_count_kv),
      static_cast<unsigned long long>(info.context_length),
      info.embedding ? ", embedding model (mean pooling)" : "",
      static_cast<double>(info.parameter_count) / 1e6,
      static_cast<double>(info.file_size) / (1 << 20));
  std::printf(
      "warning: this model has RANDOM weights; it loads and runs but its output is "
      "gibberish. Use it for tests, demos and benchmarks only.\n");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes a synthetic llama GGUF model with random weights (output is gibberish)."};
  std::string out;
  std::string preset = "tiny";
  Overrides o;
  app.add_option("--out", out, "output .gguf path")->required();
  app.add_option("--preset", preset, "size preset")
      ->check(CLI::IsMember({"tiny", "small", "bench", "tiny-embed"}));
  app.add_option("--name", o.name, "general.name");
  app.add_option("--type", o.type, "weight type")->check(CLI::IsMember({"f32", "f16", "q8_0"}));
  app.add_option("--layers", o.layers, "transformer blocks")->check(CLI::PositiveNumber);
  app.add_option("--embedding", o.embedding, "embedding length")->check(CLI::PositiveNumber);
  app.add_option("--heads", o.heads, "attention heads")->check(CLI::PositiveNumber);
  app.add_option("--kv-heads", o.kv_heads, "key/value heads")->check(CLI::PositiveNumber);
  app.add_option("--ff", o.ff, "feed-forward length")->check(CLI::PositiveNumber);
  app.add_option("--context", o.context, "context length")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "random seed")->check(CLI::PositiveNumber);
  app.add_flag("--embedding-model", o.embedding_model, "write an embedding model (mean pooling)");
  CLI11_PARSE(app, argc, argv);

  auto spec = zest::tools::PresetSpec(preset);
  if (!spec.ok()) {
    std::fprintf(stderr, "error: %s\n", spec.status().ToString().c_str());
    return 2;
  }
  ApplyOverrides(o, *spec);
  const zest::Status status = zest::tools::WriteSyntheticModel(*spec, out);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
    return 1;
  }
  PrintSummary(out);
  return 0;
}
