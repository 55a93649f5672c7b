#include "engines/llama_server_flags.h"

#include <iterator>

namespace zest::engines {
namespace {

using Names = std::vector<std::string_view>;

FlagSpec Switch(Names names) { return {std::move(names), FlagValue::kNone, {}}; }
FlagSpec Int(Names names, double min, double max) {
  return {std::move(names), FlagValue::kInt, {}, min, max};
}
FlagSpec Num(Names names, double min = -1e9, double max = 1e9) {
  return {std::move(names), FlagValue::kNumber, {}, min, max};
}
FlagSpec Choice(Names names, Names choices) {
  return {std::move(names), FlagValue::kChoice, std::move(choices)};
}
FlagSpec Text(Names names) { return {std::move(names), FlagValue::kText, {}}; }
FlagSpec File(Names names, FlagValue kind = FlagValue::kPath) {
  return {std::move(names), kind, {}};
}

constexpr double kTokens = 1 << 30;  // a bound no sensible token count reaches

const Names kKvTypes = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
const Names kOnOffAuto = {"on", "off", "auto"};

// Context, batching and the KV cache.
std::vector<FlagSpec> ContextFlags() {
  return {
      Int({"--threads-batch", "-tb"}, 1, 1024),
      Int({"--n-predict", "--predict", "-n"}, -1, kTokens),
      Int({"--keep"}, -1, kTokens),
      Switch({"--swa-full"}),
      Switch({"--kv-offload", "-kvo"}),
      Switch({"--no-kv-offload", "-nkvo"}),
      Switch({"--repack"}),
      Switch({"--no-repack", "-nr"}),
      Switch({"--no-host"}),
      Switch({"--op-offload"}),
      Switch({"--no-op-offload"}),
      Choice({"--lazy-mode", "-lzm"}, kOnOffAuto),
      Choice({"--numa"}, {"distribute", "isolate", "numactl"}),
      Int({"--moe-cache-mib"}, 0, 1 << 24),
      Switch({"--check-tensors"}),
      Text({"--override-kv"}),
      Int({"--ctx-checkpoints", "--swa-checkpoints", "-ctxcp"}, 0, 1 << 16),
      Int({"--checkpoint-min-step", "-cms"}, 0, kTokens),
      Switch({"--kv-unified", "-kvu"}),
      Switch({"--no-kv-unified", "-no-kvu"}),
      Switch({"--cache-idle-slots"}),
      Switch({"--no-cache-idle-slots"}),
      Switch({"--context-shift"}),
      Switch({"--no-context-shift"}),
      Switch({"--cont-batching", "-cb"}),
      Switch({"--no-cont-batching", "-nocb"}),
      Switch({"--cache-prompt"}),
      Switch({"--no-cache-prompt"}),
      Int({"--cache-reuse"}, 0, kTokens),
      Num({"--slot-prompt-similarity", "-sps"}, 0, 1),
      Switch({"--warmup"}),
      Switch({"--no-warmup"}),
      Switch({"--mmproj-offload"}),
      Switch({"--no-mmproj-offload"}),
      Int({"--image-min-tokens"}, 0, kTokens),
      Int({"--image-max-tokens"}, 0, kTokens),
      Int({"--mtmd-batch-max-tokens"}, 0, kTokens),
  };
}

// RoPE and YaRN.
std::vector<FlagSpec> RopeFlags() {
  return {
      Choice({"--rope-scaling"}, {"none", "linear", "yarn"}),
      Num({"--rope-scale"}),
      Num({"--rope-freq-base"}),
      Num({"--rope-freq-scale"}),
      Int({"--yarn-orig-ctx"}, 0, kTokens),
      Num({"--yarn-ext-factor"}),
      Num({"--yarn-attn-factor"}),
      Num({"--yarn-beta-slow"}),
      Num({"--yarn-beta-fast"}),
  };
}

// Adapters and files (bound read-only; see ResolveFlagPaths).
std::vector<FlagSpec> AdapterFlags() {
  return {
      File({"--lora"}, FlagValue::kPathList),
      File({"--lora-scaled"}, FlagValue::kScaledPathList),
      Switch({"--lora-init-without-apply"}),
      File({"--control-vector"}, FlagValue::kPathList),
      File({"--control-vector-scaled"}, FlagValue::kScaledPathList),
      {{"--control-vector-layer-range"}, FlagValue::kIntPair, {}, 0, 1 << 20},
  };
}

// Sampling defaults: those of requests that do not set their own.
std::vector<FlagSpec> SamplingFlags() {
  return {
      Text({"--samplers"}),
      Text({"--sampling-seq", "--sampler-seq"}),
      Int({"--seed", "-s"}, -1, 4294967295.0),
      Switch({"--ignore-eos"}),
      Num({"--temp", "--temperature"}, 0, 100),
      Int({"--top-k"}, 0, 1 << 20),
      Num({"--top-p"}, 0, 1),
      Num({"--min-p"}, 0, 1),
      Num({"--top-n-sigma", "--top-nsigma"}),
      Num({"--xtc-probability"}, 0, 1),
      Num({"--xtc-threshold"}, 0, 1),
      Num({"--typical-p", "--typical"}, 0, 1),
      Int({"--repeat-last-n"}, -1, kTokens),
      Num({"--repeat-penalty"}),
      Num({"--presence-penalty"}),
      Num({"--frequency-penalty"}),
      Num({"--dry-multiplier"}),
      Num({"--dry-base"}),
      Int({"--dry-allowed-length"}, 0, kTokens),
      Int({"--dry-penalty-last-n"}, -1, kTokens),
      Text({"--dry-sequence-breaker"}),
      Num({"--adaptive-target"}),
      Num({"--adaptive-decay"}),
      Num({"--dynatemp-range"}),
      Num({"--dynatemp-exp"}),
      Int({"--mirostat"}, 0, 2),
      Num({"--mirostat-lr"}),
      Num({"--mirostat-ent"}),
      Text({"--logit-bias", "-l"}),
      Text({"--grammar"}),
      File({"--grammar-file"}),
      Text({"--json-schema", "-j"}),
      File({"--json-schema-file", "-jf"}),
      Switch({"--backend-sampling", "-bs"}),
  };
}

// Speculative decoding's finer settings. The draft model itself, and how
// many tokens it drafts, are the model's options (draft, draft_max,
// draft_min: kOwned): zest checks the draft's tokenizer, counts it in the
// ledger and places it (engines/speculative_args).
std::vector<FlagSpec> SpeculativeFlags() {
  return {
      Choice({"--cache-type-k-draft", "--spec-draft-type-k", "-ctkd"}, kKvTypes),
      Choice({"--cache-type-v-draft", "--spec-draft-type-v", "-ctvd"}, kKvTypes),
      {{"--spec-type"},
       FlagValue::kChoiceList,
       {"none", "draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark",
        "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache"}},
      Int({"--spec-draft-n-ubatch"}, 1, 1 << 20),
      Num({"--spec-draft-p-split", "--draft-p-split"}, 0, 1),
      Num({"--spec-draft-p-min", "--draft-p-min"}, 0, 1),
      Choice({"--spec-draft-sampling"}, {"greedy", "probabilistic"}),
      Int({"--spec-ngram-mod-n-min"}, 0, 1024),
      Int({"--spec-ngram-mod-n-max"}, 0, 1024),
      Int({"--spec-ngram-mod-n-match"}, 0, 1024),
      Int({"--spec-ngram-simple-size-n"}, 0, 1024),
      Int({"--spec-ngram-simple-size-m"}, 0, 1024),
      Int({"--spec-ngram-simple-min-hits"}, 0, 1024),
      Int({"--spec-ngram-map-k-size-n"}, 0, 1024),
      Int({"--spec-ngram-map-k-size-m"}, 0, 1024),
      Int({"--spec-ngram-map-k-min-hits"}, 0, 1024),
      Int({"--spec-ngram-map-k4v-size-n"}, 0, 1024),
      Int({"--spec-ngram-map-k4v-size-m"}, 0, 1024),
      Int({"--spec-ngram-map-k4v-min-hits"}, 0, 1024),
  };
}

// Chat templates, reasoning, output.
std::vector<FlagSpec> ChatFlags() {
  return {
      Switch({"--jinja"}),
      Switch({"--no-jinja"}),
      Text({"--chat-template"}),
      File({"--chat-template-file"}),
      Text({"--chat-template-kwargs"}),
      Switch({"--skip-chat-parsing"}),
      Switch({"--no-skip-chat-parsing"}),
      Switch({"--prefill-assistant"}),
      Switch({"--no-prefill-assistant"}),
      Choice({"--reasoning-format"}, {"none", "deepseek", "deepseek-legacy", "auto"}),
      Choice({"--reasoning", "-rea"}, kOnOffAuto),
      Text({"--reasoning-effort"}),
      Int({"--reasoning-budget"}, -1, kTokens),
      Text({"--reasoning-budget-message"}),
      Switch({"--reasoning-preserve"}),
      Switch({"--no-reasoning-preserve"}),
      Text({"--reverse-prompt", "-r"}),
      Switch({"--special", "-sp"}),
      Switch({"--spm-infill"}),
      Switch({"--escape", "-e"}),
      Switch({"--no-escape"}),
      Choice({"--pooling"}, {"none", "mean", "cls", "last", "rank"}),
      Int({"--embd-normalize"}, -1, 1 << 20),
      Switch({"--reranking", "--rerank"}),
  };
}

// Server behaviour and logging.
std::vector<FlagSpec> ServerFlags() {
  return {
      Int({"--timeout", "-to"}, 1, 1 << 20),
      Int({"--sse-ping-interval"}, -1, 1 << 20),
      Int({"--threads-http"}, -1, 1024),
      Switch({"--perf"}),
      Switch({"--no-perf"}),
      Switch({"--offline"}),
      // Level 5 (debug) logs prompts and replies, like -v.
      Int({"--log-verbosity", "--verbosity", "-lv"}, 0, 4),
      Choice({"--log-colors"}, kOnOffAuto),
      Switch({"--log-prefix"}),
      Switch({"--no-log-prefix"}),
      Switch({"--log-timestamps"}),
      Switch({"--no-log-timestamps"}),
  };
}

// Grouped as llama-server's --help groups them; made once.
const std::vector<FlagSpec>& Allowed() {
  static const std::vector<FlagSpec> kAllowed = [] {
    std::vector<FlagSpec> all;
    for (auto group : {ContextFlags, RopeFlags, AdapterFlags, SamplingFlags, SpeculativeFlags,
                       ChatFlags, ServerFlags}) {
      std::vector<FlagSpec> flags = group();
      all.insert(all.end(), std::make_move_iterator(flags.begin()),
                 std::make_move_iterator(flags.end()));
    }
    return all;
  }();
  return kAllowed;
}

constexpr const char* kVerboseWhy =
    "it logs every prompt and reply, and llama-server then ends a stream with a 500 when a "
    "reply is not valid UTF-8; -lv 4 logs the load details without either";

// Flags zest sets itself, or that an option sets: refused with what to use.
constexpr OwnedFlag kOwned[] = {
    {"--host", "zest chooses the engine's socket"},
    {"--port", "zest chooses the engine's socket"},
    {"--api-key", "zest does authentication"},
    {"--api-key-file", "zest does authentication"},
    {"--ssl-key-file", "zest terminates TLS"},
    {"--ssl-cert-file", "zest terminates TLS"},
    {"--slot-save-path", "engines may not write files"},
    {"--log-file", "zest captures engine logs"},
    {"--log-prompts-dir", "engines may not write files"},
    {"--path", "engines serve no static files"},
    {"--alias", "zest names the model"},
    {"-a", "zest names the model"},
    {"--model", "zest chooses the model file"},
    {"-m", "zest chooses the model file"},
    {"--mmproj", "zest chooses the projector file"},
    {"-mm", "zest chooses the projector file"},
    {"--metrics", "zest enables it"},
    {"--threads", "use engine.threads; zest shares the cores between engines"},
    {"-t", "use engine.threads; zest shares the cores between engines"},
    {"--ctx-size", "use ctx_size"},
    {"-c", "use ctx_size"},
    {"--parallel", "use parallel"},
    {"-np", "use parallel"},
    {"--n-gpu-layers", "use n_gpu_layers"},
    {"--gpu-layers", "use n_gpu_layers"},
    {"-ngl", "use n_gpu_layers"},
    {"--device", "use device"},
    {"-dev", "use device"},
    {"--tensor-split", "use tensor_split"},
    {"-ts", "use tensor_split"},
    {"--cache-type-k", "use cache_type_k"},
    {"-ctk", "use cache_type_k"},
    {"--cache-type-v", "use cache_type_v"},
    {"-ctv", "use cache_type_v"},
    {"--n-cpu-moe", "use n_cpu_moe"},
    {"-ncmoe", "use n_cpu_moe"},
    {"--cpu-moe", "use n_cpu_moe"},
    {"-cmoe", "use n_cpu_moe"},
    {"--flash-attn", "use flash_attention"},
    {"-fa", "use flash_attention"},
    {"--batch-size", "use batch"},
    {"-b", "use batch"},
    {"--ubatch-size", "use ubatch"},
    {"-ub", "use ubatch"},
    {"--cache-ram", "use cache_ram"},
    {"--model-draft", "use draft"},
    {"--spec-draft-model", "use draft"},
    {"-md", "use draft"},
    {"--spec-draft-n-max", "use draft_max"},
    {"--spec-draft-n-min", "use draft_min"},
    {"-cram", "use cache_ram"},
    {"--load-mode", "use no_mmap and mlock"},
    {"-lm", "use no_mmap and mlock"},
    {"--mlock", "use no_mmap and mlock"},
    {"--no-mmap", "use no_mmap and mlock"},
    {"--fit", "zest places the model itself"},
    {"-fit", "zest places the model itself"},
    {"--split-mode", "zest places the model itself"},
    {"-sm", "zest places the model itself"},
    {"--main-gpu", "zest places the model itself"},
    {"-mg", "zest places the model itself"},
    {"--override-tensor", "zest places the model itself"},
    {"-ot", "zest places the model itself"},
    {"--n-cpu-ffn", "zest places the model itself"},
    {"-ncffn", "zest places the model itself"},
    {"--rpc", "use [rpc] workers"},
    {"--models-dir", "zest is the router"},
    {"--models-max", "zest is the router"},
    {"--sleep-idle-seconds", "use keep_alive"},
    {"--props", "clients may not change the engine's settings"},
    {"--slots", "zest reads the engine's slots"},
    {"--no-slots", "zest reads the engine's slots"},
    {"-v", kVerboseWhy},
    {"--verbose", kVerboseWhy},
    {"--log-verbose", kVerboseWhy},
};

}  // namespace

const FlagTable& LlamaServerFlags() {
  static const FlagTable kTable{"llama-server", Allowed(), kOwned};
  return kTable;
}

Result<std::vector<EngineFlag>> CheckLlamaServerArgs(const std::vector<std::string>& args) {
  return ParseEngineFlags(args, LlamaServerFlags());
}

}  // namespace zest::engines
