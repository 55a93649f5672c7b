#include "engines/llama_server_args.h"

namespace zest::engines {

std::vector<std::string> LlamaServerArgs(const LlamaServerOptions& options) {
  std::vector<std::string> argv = {"llama-server", "--host", options.socket.string()};
  // Without an alias llama-server names the model by its file path, which
  // would leak into every response; an empty alias is simply left out.
  if (!options.alias.empty()) argv.insert(argv.end(), {"--alias", options.alias});
  argv.insert(argv.end(), {"-m", options.model.string(), "--metrics", "--jinja", "--parallel",
                           std::to_string(options.parallel)});
  if (options.ctx_size > 0) argv.insert(argv.end(), {"-c", std::to_string(options.ctx_size)});
  if (options.threads > 0) argv.insert(argv.end(), {"-t", std::to_string(options.threads)});
  if (!options.mmproj.empty()) argv.insert(argv.end(), {"--mmproj", options.mmproj.string()});
  if (options.embeddings) argv.push_back("--embeddings");
  if (!options.slot_save_path.empty()) {
    argv.insert(argv.end(), {"--slot-save-path", options.slot_save_path.string()});
  }
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  return argv;
}

}  // namespace zest::engines
