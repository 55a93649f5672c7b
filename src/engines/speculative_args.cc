#include "engines/speculative_args.h"

namespace zest::engines {

std::string SpecTypeFor(const std::string& kind) {
  if (kind == "draft") return "draft-simple";
  // ngram-simple looks the last tokens up in the text so far: what an edit
  // (an answer that repeats much of its prompt) wants, with nothing to load.
  if (kind == "ngram") return "ngram-simple";
  if (kind == "mtp") return "draft-mtp";
  return "";
}

std::vector<std::string> SpeculativeArgv(const SpeculativeArgs& args) {
  std::vector<std::string> argv;
  if (args.spec_type.empty()) return argv;
  argv.insert(argv.end(), {"--spec-type", args.spec_type});
  if (!args.draft_model.empty()) {
    argv.insert(argv.end(), {"--model-draft", args.draft_model.string()});
    // The draft sits whole on the target's main device (the ledger counts
    // it there), or on the CPU.
    if (args.draft_device.empty()) {
      argv.insert(argv.end(), {"--device-draft", "none", "-ngld", "0"});
    } else {
      argv.insert(argv.end(), {"--device-draft", args.draft_device, "-ngld", "all"});
    }
  }
  if (args.max_tokens) {
    argv.insert(argv.end(), {"--spec-draft-n-max", std::to_string(*args.max_tokens)});
  }
  if (args.min_tokens) {
    argv.insert(argv.end(), {"--spec-draft-n-min", std::to_string(*args.min_tokens)});
  }
  return argv;
}

}  // namespace zest::engines
