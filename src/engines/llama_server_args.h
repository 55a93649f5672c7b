// The llama-server command line for one model instance. Pure function.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace zest::engines {

struct LlamaServerOptions {
  std::filesystem::path model;     // the GGUF file
  std::string alias;               // model name clients use (--alias)
  std::filesystem::path socket;    // UNIX socket (--host PATH.sock)
  std::filesystem::path mmproj;    // vision projector (--mmproj); empty = none
  int ctx_size = 0;                // -c, shared by all slots; 0 = the model's own
  int parallel = 1;                // --parallel (slots)
  int threads = 0;                 // -t; 0 = llama-server's default
  bool embeddings = false;         // --embeddings (embedding models)
  std::filesystem::path slot_save_path;  // --slot-save-path (slot save/restore); empty = none
  std::vector<std::string> extra;  // appended as given
};

// argv starting with "llama-server": --host SOCKET [--alias NAME] -m MODEL
// --metrics --jinja --parallel N [-c N] [-t N] [--embeddings]
// [--slot-save-path DIR] extra...
// (--alias only when an alias is given). Pass it to EngineLocation::Command.
std::vector<std::string> LlamaServerArgs(const LlamaServerOptions& options);

}  // namespace zest::engines
