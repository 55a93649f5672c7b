// The llama-server flags for speculative decoding, as zest planned it
// (placement/engine_plan.h SpeculativePlan): the draft model and its device,
// or the kind of drafting without one (n-gram lookup, the model's MTP
// heads), and how many tokens to draft per step. Spellings are those of the
// rootfs llama-server (build 11669 and later). Pure.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zest::engines {

struct SpeculativeArgs {
  std::string spec_type;              // --spec-type; "" = no speculative decoding
  std::filesystem::path draft_model;  // --model-draft, with spec_type "draft-simple"
  // The GPU the draft runs on (--device-draft, all its layers there);
  // "" = the CPU.
  std::string draft_device;
  std::optional<int> max_tokens;  // --spec-draft-n-max
  std::optional<int> min_tokens;  // --spec-draft-n-min
};

// The engine's --spec-type for zest's kinds: "draft" (a draft model),
// "ngram", "mtp"; "" for anything else.
std::string SpecTypeFor(const std::string& kind);

// The flags; empty when spec_type is.
std::vector<std::string> SpeculativeArgv(const SpeculativeArgs& args);

}  // namespace zest::engines
