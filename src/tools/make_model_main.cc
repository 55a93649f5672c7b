// zest-make-model: writes a synthetic model with random weights (tests, the
// demo, benchmarks): a llama GGUF that loads in llama-server, or (--arch
// whisper) a whisper.cpp ggml .bin that loads in whisper-server. Both produce
// gibberish. The tiny-quote-brace and tiny-file-reader presets are llama
// GGUFs with designed weights instead: a few chosen tokens, for tests of
// JSON grammars and of coding agents' tool calls. With
// --mmproj-out, a vision projector for the llama model beside it
// (tools/vision_projector.h). --arch tts (or outetts) writes an
// OuteTTS-style speech-out pair (tools/outetts_model.h), which zest serves
// on two llama-servers (the engine rootfs's llama-tts cannot run it).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <map>

#include "models/gguf_reader.h"
#include "models/whisper_file.h"
#include "tools/outetts_model.h"
#include "tools/synthetic_model.h"
#include "tools/vision_projector.h"
#include "tools/whisper_model.h"

namespace {

using zest::tools::SyntheticModelSpec;
using zest::tools::TensorType;
using zest::tools::WhisperModelSpec;

constexpr const char* kRandomWarning =
    "warning: this model has RANDOM weights; it loads and runs but its output is "
    "gibberish. Use it for tests, demos and benchmarks only.\n";
constexpr const char* kQuoteBraceWarning =
    "warning: this is not a real model: its weights are DESIGNED to write '\"}' and end\n"
    "  the turn (under a JSON object grammar '{\"}\":\"}\"}'). For tests only.\n";
constexpr const char* kFileReaderWarning =
    "warning: this is not a real model: its weights are DESIGNED to call a coding agent's\n"
    "  read tool on /scratch/a.txt when tools are offered, then answer 'I read the file.'.\n"
    "  For tests only.\n";

struct Overrides {
  std::string name;
  std::string type;
  uint32_t layers = 0, embedding = 0, heads = 0, kv_heads = 0, ff = 0, context = 0;
  uint64_t seed = 0;
  bool embedding_model = false;
  bool english_only = false;
};

TensorType TypeOf(const std::string& name) {
  static const std::map<std::string, TensorType> kTypes = {
      {"f32", TensorType::kF32}, {"f16", TensorType::kF16}, {"q8_0", TensorType::kQ8_0}};
  return kTypes.at(name);  // CLI11 checked the choice
}

void ApplyOverrides(const Overrides& o, SyntheticModelSpec& spec) {
  if (!o.name.empty()) spec.name = o.name;
  if (!o.type.empty()) spec.type = TypeOf(o.type);
  if (o.layers) spec.layers = o.layers;
  if (o.embedding) spec.embedding = o.embedding;
  if (o.heads) spec.heads = o.heads;
  if (o.kv_heads) spec.kv_heads = o.kv_heads;
  if (o.ff) spec.feed_forward = o.ff;
  if (o.context) spec.context = o.context;
  if (o.seed) spec.seed = o.seed;
  if (o.embedding_model) spec.embedding_model = true;
}

WhisperModelSpec WhisperSpecFrom(const Overrides& o) {
  WhisperModelSpec spec;
  if (!o.type.empty()) spec.type = TypeOf(o.type);
  if (o.layers) spec.audio_layers = spec.text_layers = o.layers;
  if (o.embedding) spec.state = o.embedding;
  if (o.heads) spec.heads = o.heads;
  if (o.seed) spec.seed = o.seed;
  spec.multilingual = !o.english_only;
  return spec;
}

void PrintSummary(const std::string& path, const SyntheticModelSpec& spec) {
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
  std::printf("%s", spec.quote_brace   ? kQuoteBraceWarning
                    : spec.file_reader ? kFileReaderWarning
                                       : kRandomWarning);
}

void PrintWhisperSummary(const std::string& path, const WhisperModelSpec& spec) {
  auto file = zest::models::ReadWhisperFile(path);
  if (!file.ok()) {
    std::fprintf(stderr, "warning: cannot read back %s: %s\n", path.c_str(),
                 file.status().ToString().c_str());
    return;
  }
  const zest::models::WhisperHparams& h = file->hparams;
  std::printf(
      "wrote %s\n  whisper (ggml .bin), %s, ftype %d, %d+%d layers, n_state %d, heads %d, "
      "n_mels %d, n_vocab %d\n  %.1f M parameters, %.1f MiB\n",
      path.c_str(), zest::models::IsMultilingual(h) ? "multilingual" : "English-only", h.ftype,
      h.n_audio_layer, h.n_text_layer, h.n_audio_state, h.n_audio_head, h.n_mels, h.n_vocab,
      static_cast<double>(file->ParameterCount()) / 1e6,
      static_cast<double>(file->file_size) / (1 << 20));
  std::printf("  transcribes each 30 s window of any audio to \"%s\"\n",
              zest::tools::WhisperModelTranscript(spec).c_str());
  std::printf("%s", kRandomWarning);
}

// The llama-only options that --arch whisper rejects rather than ignores.
bool RejectLlamaOnly(const CLI::App& app) {
  for (const char* option : {"--preset", "--name", "--kv-heads", "--ff", "--context",
                             "--embedding-model", "--mmproj-out"}) {
    if (app.count(option) > 0) {
      std::fprintf(stderr, "error: %s does not apply to --arch whisper\n", option);
      return true;
    }
  }
  return false;
}

// The vision projector for `spec`'s model, at `out`; prints what it wrote.
int WriteProjector(const SyntheticModelSpec& spec, const std::string& out, uint32_t width) {
  zest::tools::VisionProjectorSpec projector =
      zest::tools::ProjectorFor(spec.embedding, spec.type, spec.name);
  if (width) {  // a wider encoder: more weights (memory tests), the same tokens
    projector.embedding = width;
    projector.feed_forward = 2 * width;
  }
  const zest::Status status = zest::tools::WriteVisionProjector(projector, out);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf(
      "wrote %s\n  vision projector '%s' (%s), %ux%u px images in %u px patches: %u image "
      "tokens each, output width %u\n",
      out.c_str(), projector.name.c_str(), zest::tools::kProjectorTypeMlp, projector.image_size,
      projector.image_size, projector.patch_size, zest::tools::ImageTokenCount(projector),
      projector.text_embedding);
  return 0;
}

int WriteLlama(const std::string& preset, const Overrides& o, const std::string& out,
               const std::string& mmproj_out, uint32_t mmproj_width) {
  auto spec = zest::tools::PresetSpec(preset);
  if (!spec.ok()) {
    std::fprintf(stderr, "error: %s\n", spec.status().ToString().c_str());
    return 2;
  }
  ApplyOverrides(o, *spec);
  if (!mmproj_out.empty() && !spec->generates()) {
    std::fprintf(stderr, "error: --mmproj-out needs a model that writes text (not %s)\n",
                 preset.c_str());
    return 2;
  }
  const zest::Status status = zest::tools::WriteSyntheticModel(*spec, out);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
    return 1;
  }
  PrintSummary(out, *spec);
  return mmproj_out.empty() ? 0 : WriteProjector(*spec, mmproj_out, mmproj_width);
}

// A target (the preset) and a draft that agree (tools/successor_chain.h),
// or with `chance` agree only by chance: for speculative decoding.
int WriteDraftPair(const std::string& preset, const Overrides& o, const std::string& out,
                   const std::string& draft_out, uint32_t draft_layers, bool chance) {
  auto spec = zest::tools::PresetSpec(preset);
  if (!spec.ok() || !spec->generates() || spec->quote_brace || spec->file_reader) {
    std::fprintf(stderr, "error: --draft-out needs a random preset that writes text\n");
    return 2;
  }
  ApplyOverrides(o, *spec);
  const SyntheticModelSpec draft = zest::tools::DraftSpecFor(*spec, draft_layers, chance);
  for (const auto& [s, path] : {std::pair{*spec, out}, std::pair{draft, draft_out}}) {
    const zest::Status status = zest::tools::WriteSyntheticModel(s, path);
    if (!status.ok()) {
      std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
      return 1;
    }
    PrintSummary(path, s);
  }
  std::printf("  the draft %s the target's next token; neither ends its turn on its own\n",
              chance ? "agrees only by chance with" : "predicts");
  return 0;
}

int WriteWhisper(const Overrides& o, const std::string& out) {
  const WhisperModelSpec spec = WhisperSpecFrom(o);
  const zest::Status status = zest::tools::WriteWhisperModel(spec, out);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
    return 1;
  }
  PrintWhisperSummary(out, spec);
  return 0;
}

int WriteOuteTts(const Overrides& o, const std::string& out) {
  zest::tools::OuteTtsModelSpec spec;
  if (!o.name.empty()) spec.name = o.name;
  if (o.seed) spec.seed = o.seed;
  const zest::Status status = zest::tools::WriteOuteTtsModel(spec, out);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf(
      "wrote %s\n  OuteTTS-style backbone '%s' (llama, %u-token vocabulary)\n"
      "wrote %s\n  its WavTokenizer vocoder (wavtokenizer-dec)\n"
      "  zest serves the pair from a models directory as a speech-out model: each audio\n"
      "  code the backbone writes is %.4f s of 24 kHz noise\n",
      out.c_str(), spec.name.c_str(), zest::tools::kOuteTtsBackboneVocab,
      zest::tools::OuteTtsVocoderPath(out).c_str(), zest::tools::kOuteTtsSecondsPerCode);
  std::printf("%s", kRandomWarning);
  return 0;
}

// The options --arch outetts rejects rather than ignores.
bool RejectForOuteTts(const CLI::App& app) {
  for (const char* option :
       {"--preset", "--type", "--layers", "--embedding", "--heads", "--kv-heads", "--ff",
        "--context", "--embedding-model", "--mmproj-out", "--mmproj-width", "--english-only"}) {
    if (app.count(option) > 0) {
      std::fprintf(stderr, "error: %s does not apply to --arch outetts\n", option);
      return true;
    }
  }
  return false;
}

constexpr const char* kDescription =
    "Writes a synthetic model with random weights (output is gibberish), or with designed\n"
    "ones (tiny-quote-brace, tiny-file-reader).";

constexpr const char* kFooter =
    "--arch whisper writes a whisper.cpp model in its legacy ggml format (.bin, what\n"
    "whisper-server -m loads): multilingual (n_vocab 51865; --english-only: 51864),\n"
    "80 mel bands, 1500 audio and 448 text positions, 2 encoder and 1 decoder layers\n"
    "of width 64, F16 (about 8 MiB). Whatever the audio, each 30 s window transcribes\n"
    "to the same five made-up words (chosen by --seed; printed when written), fast.\n"
    "Of the options above it takes --type, --layers (encoder and decoder each; avoid\n"
    "2: whisper.cpp takes a 2-layer decoder for distil-whisper), --embedding, --heads\n"
    "and --seed.\n\n"
    "--preset tiny-quote-brace is not random: a synthetic model with a designed token\n"
    "preference (tiny's shape; layers that add nothing, embeddings and output rows\n"
    "set by hand). After '\"' it writes '}' (else ':'), after '}' it ends its turn\n"
    "(else '\"'), after anything else '\"' (else '{'). Alone it answers '\"}', never\n"
    "JSON; under a JSON object grammar '{\"}\":\"}\"}', on any seed (--seed changes\n"
    "nothing). For tests of such grammars.\n\n"
    "--preset tiny-file-reader is not random either: one layer of width 16 whose\n"
    "attention finds the chat template's <tools> and </tool_call> or <tool_response>\n"
    "tokens, and a next token chosen by the current one, over a vocabulary with a\n"
    "few pieces of a tool call added. Offered tools and no call answered yet, it calls\n"
    "the first of read_file, Read, read, exec_command that is offered (the engine's\n"
    "tool-call grammar masks the others) with the first of file_path, filePath,\n"
    "filepath (\"/scratch/a.txt\") or cmd (\"cat /scratch/a.txt\") its schema takes;\n"
    "otherwise it answers \"I read the file.\" and ends its turn (--seed changes\n"
    "nothing). For the coding-agent tests, whose sandbox puts their project at\n"
    "/scratch.\n\n"
    "--mmproj-out writes a vision projector for the model beside it (random weights;\n"
    "llama-server -m MODEL --mmproj PROJECTOR): LLaVA's MLP projector over a 2-block\n"
    "CLIP encoder, output width the model's embedding. Every image is resized to\n"
    "32x32 px and takes 16 prompt tokens (8 px patches).\n\n"
    "--arch tts (or outetts) writes an OuteTTS-0.2-style speech-out pair that zest\n"
    "serves as NAME: a backbone at --out (NAME.gguf; OuteTTS's tokens, steered to\n"
    "write only audio codes) and a WavTokenizer vocoder (NAME.vocoder.gguf,\n"
    "wavtokenizer-dec), about 15 MB together. zest runs them on two llama-servers\n"
    "and makes the vocoder's frames 24 kHz audio (noise: random weights), 75 codes\n"
    "a second. The engine rootfs's llama-tts (build 11669) runs Qwen3-TTS and Pocket\n"
    "TTS only and rejects this vocoder. It takes --name and --seed.";

// Everything the command line sets.
struct Options {
  std::string out;
  std::string arch = "llama";
  std::string preset = "tiny";
  std::string mmproj_out;
  uint32_t mmproj_width = 0;
  std::string draft_out;
  uint32_t draft_layers = 1;
  bool draft_chance = false;
  Overrides overrides;
};

void AddOptions(CLI::App& app, Options& opt) {
  Overrides& o = opt.overrides;
  app.add_option("--out", opt.out, "output path (.gguf; .bin for whisper)")->required();
  app.add_option("--mmproj-out", opt.mmproj_out,
                 "also write a vision projector for the model (.gguf; llama presets that "
                 "write text)");
  app.add_option("--mmproj-width", opt.mmproj_width,
                 "the projector's vision encoder width (default 64; a multiple of 4; its "
                 "weights grow with the square)")
      ->check(CLI::PositiveNumber);
  app.add_option("--arch", opt.arch, "model family")
      ->check(CLI::IsMember({"llama", "whisper", "tts", "outetts"}));
  app.add_option("--preset", opt.preset, "size preset (llama)")
      ->check(CLI::IsMember({"tiny", "small", "bench", "bench-85m", "tiny-embed", "tiny-rerank",
                             "tiny-quote-brace", "tiny-file-reader"}));
  app.add_option("--name", o.name, "general.name (llama)");
  app.add_option("--type", o.type, "weight type")->check(CLI::IsMember({"f32", "f16", "q8_0"}));
  app.add_option("--layers", o.layers, "transformer blocks")->check(CLI::PositiveNumber);
  app.add_option("--embedding", o.embedding, "embedding length")->check(CLI::PositiveNumber);
  app.add_option("--heads", o.heads, "attention heads")->check(CLI::PositiveNumber);
  app.add_option("--kv-heads", o.kv_heads, "key/value heads (llama)")->check(CLI::PositiveNumber);
  app.add_option("--ff", o.ff, "feed-forward length (llama)")->check(CLI::PositiveNumber);
  app.add_option("--context", o.context, "context length (llama)")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "random seed")->check(CLI::PositiveNumber);
  app.add_flag("--embedding-model", o.embedding_model,
               "write an embedding model (mean pooling; llama)");
  app.add_flag("--english-only", o.english_only, "an English-only vocabulary (whisper)");
  app.add_option("--draft-out", opt.draft_out,
                 "also write a draft model for speculative decoding (.gguf; llama): the\n"
                 "preset's width and vocabulary, --draft-layers blocks, and both models\n"
                 "follow one successor chain, so the draft predicts the target");
  app.add_option("--draft-layers", opt.draft_layers, "the draft's transformer blocks (default 1)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--draft-chance", opt.draft_chance,
               "a draft that agrees with the target only by chance (its own chain)");
}

// The writer the options ask for; 2 for options that do not go together.
int Write(const CLI::App& app, const Options& opt) {
  const Overrides& o = opt.overrides;
  if (!opt.draft_out.empty()) {
    if (opt.arch != "llama" || !opt.mmproj_out.empty()) {
      std::fprintf(stderr, "error: --draft-out applies to --arch llama without --mmproj-out\n");
      return 2;
    }
    return WriteDraftPair(opt.preset, o, opt.out, opt.draft_out, opt.draft_layers,
                          opt.draft_chance);
  }
  if (opt.arch == "tts" || opt.arch == "outetts") {  // the one speech-out family zest can make
    if (RejectForOuteTts(app)) return 2;
    return WriteOuteTts(o, opt.out);
  }
  if (opt.arch == "whisper") {
    if (RejectLlamaOnly(app)) return 2;
    return WriteWhisper(o, opt.out);
  }
  if (o.english_only) {
    std::fprintf(stderr, "error: --english-only applies to --arch whisper only\n");
    return 2;
  }
  return WriteLlama(opt.preset, o, opt.out, opt.mmproj_out, opt.mmproj_width);
}

int Run(int argc, char** argv) {
  CLI::App app{kDescription};
  app.footer(kFooter);
  Options options;
  AddOptions(app, options);
  CLI11_PARSE(app, argc, argv);
  return Write(app, options);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {  // last resort: a bug, reported rather than aborting
    std::fprintf(stderr, "zest-make-model: internal error: %s\n", e.what());
    return 1;
  }
}
