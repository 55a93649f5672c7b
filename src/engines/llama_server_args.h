// The llama-server command line for one model instance. Pure function.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engines/speculative_args.h"

namespace zest::engines {

// Where and how the engine holds the model, as zest's placement chose it
// (placement/engine_plan.h). Flag spellings are those of the rootfs
// llama-server (build 11669): it has --load-mode instead of --no-mmap/--mlock,
// and fits models to memory by itself unless told `--fit off`.
struct EnginePlacement {
  std::vector<std::string> devices;  // --device a,b; empty = --device none (CPU only)
  // --rpc A,B: ggml RPC workers (rpc_backend.h), in the order that names
  // their devices RPC0, RPC1... in `devices`.
  std::vector<std::string> rpc_servers;
  int gpu_layers = 0;                     // -ngl
  std::vector<double> tensor_split;       // --tensor-split, when more than one device
  int n_cpu_moe = 0;                      // --n-cpu-moe, when > 0
  bool mmproj_on_cpu = false;             // --no-mmproj-offload (with --mmproj)
  std::string cache_type_k = "f16";       // -ctk
  std::string cache_type_v = "f16";       // -ctv
  std::optional<bool> flash_attention;    // -fa on|off; unset = the engine's auto
  bool no_mmap = false;                   // --load-mode none (or mlock)
  bool mlock = false;                     // --load-mode mmap+mlock (or mlock)
  std::optional<uint32_t> batch;          // -b
  uint32_t ubatch = 512;                  // -ub
  std::optional<uint64_t> cache_ram_mib;  // --cache-ram; unset = the engine's default
};

struct LlamaServerOptions {
  std::filesystem::path model;               // the GGUF file
  std::string alias;                         // model name clients use (--alias)
  std::filesystem::path socket;              // UNIX socket (--host PATH.sock)
  std::filesystem::path mmproj;              // vision projector (--mmproj); empty = none
  int ctx_size = 0;                          // -c, shared by all slots; 0 = the model's own
  int parallel = 1;                          // --parallel (slots)
  int threads = 0;                           // -t; 0 = llama-server's default
  bool embeddings = false;                   // --embeddings (embedding models)
  bool reranking = false;                    // --reranking instead (rerankers)
  std::filesystem::path slot_save_path;      // --slot-save-path (slot save/restore); empty = none
  std::optional<EnginePlacement> placement;  // unset: the engine decides
  SpeculativeArgs speculative;               // none unless spec_type is set
  std::vector<std::string> extra;            // appended as given
};

// argv starting with "llama-server": --host SOCKET [--alias NAME] -m MODEL
// --metrics --jinja --parallel N [-c N] [-t N] [--mmproj F] [--embeddings | --reranking]
// [placement flags] [--slot-save-path DIR] [speculative flags] extra... (--alias only when an
// alias is given). Pass it to EngineLocation::Command.
std::vector<std::string> LlamaServerArgs(const LlamaServerOptions& options);

}  // namespace zest::engines
