#include "engines/llama_server_args.h"

#include <cstdio>

namespace zest::engines {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// --load-mode: none (read into memory), mmap, mlock (read and lock),
// mmap+mlock. Without either option the engine's own default (auto = mmap).
const char* LoadMode(const EnginePlacement& p) {
  if (p.no_mmap) return p.mlock ? "mlock" : "none";
  return p.mlock ? "mmap+mlock" : nullptr;
}

void AppendPlacement(const EnginePlacement& p, std::vector<std::string>& argv) {
  // zest has placed the model; the engine's own fitting would undo that.
  argv.insert(argv.end(), {"--fit", "off"});
  if (!p.rpc_servers.empty()) argv.insert(argv.end(), {"--rpc", Join(p.rpc_servers)});
  argv.insert(argv.end(), {"--device", p.devices.empty() ? "none" : Join(p.devices)});
  argv.insert(argv.end(), {"-ngl", std::to_string(p.devices.empty() ? 0 : p.gpu_layers)});
  if (p.devices.size() > 1 && p.tensor_split.size() == p.devices.size()) {
    std::vector<std::string> split;
    for (double w : p.tensor_split) split.push_back(Number(w));
    argv.insert(argv.end(), {"--tensor-split", Join(split)});
  }
  if (p.n_cpu_moe > 0) argv.insert(argv.end(), {"--n-cpu-moe", std::to_string(p.n_cpu_moe)});
  argv.insert(argv.end(), {"-ctk", p.cache_type_k, "-ctv", p.cache_type_v});
  if (p.flash_attention) argv.insert(argv.end(), {"-fa", *p.flash_attention ? "on" : "off"});
  if (const char* mode = LoadMode(p)) argv.insert(argv.end(), {"--load-mode", mode});
  if (p.batch) argv.insert(argv.end(), {"-b", std::to_string(*p.batch)});
  argv.insert(argv.end(), {"-ub", std::to_string(p.ubatch)});
  if (p.cache_ram_mib) argv.insert(argv.end(), {"--cache-ram", std::to_string(*p.cache_ram_mib)});
}

}  // namespace

std::vector<std::string> LlamaServerArgs(const LlamaServerOptions& options) {
  std::vector<std::string> argv = {"llama-server", "--host", options.socket.string()};
  // Without an alias llama-server names the model by its file path, which
  // would leak into every response; an empty alias is simply left out.
  if (!options.alias.empty()) argv.insert(argv.end(), {"--alias", options.alias});
  argv.insert(argv.end(), {"-m", options.model.string(), "--metrics", "--jinja", "--parallel",
                           std::to_string(options.parallel)});
  if (options.ctx_size > 0) argv.insert(argv.end(), {"-c", std::to_string(options.ctx_size)});
  if (options.threads > 0) argv.insert(argv.end(), {"-t", std::to_string(options.threads)});
  if (!options.mmproj.empty()) {
    argv.insert(argv.end(), {"--mmproj", options.mmproj.string()});
    if (options.placement && options.placement->mmproj_on_cpu)
      argv.push_back("--no-mmproj-offload");
  }
  if (options.reranking) {
    argv.push_back("--reranking");
  } else if (options.embeddings) {
    argv.push_back("--embeddings");
  }
  if (!options.slot_save_path.empty()) {
    argv.insert(argv.end(), {"--slot-save-path", options.slot_save_path.string()});
  }
  if (options.placement) AppendPlacement(*options.placement, argv);
  const std::vector<std::string> speculative = SpeculativeArgv(options.speculative);
  argv.insert(argv.end(), speculative.begin(), speculative.end());
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  return argv;
}

}  // namespace zest::engines
