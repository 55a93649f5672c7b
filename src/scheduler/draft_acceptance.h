// DraftAcceptance: how well one engine's draft model guesses, measured from
// the drafted and accepted tokens its answers report (llama-server's
// timings.draft_n / draft_n_accepted), and whether that is too little for
// drafting to pay: then `speculative = "auto"` switches the draft off
// (instance_pool.cc reloads the model without it). An explicit
// `speculative = "draft"` is never switched off; the user asked for it.
//
// Thread-safe: answers are measured on any I/O thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/mutex.h"
#include "placement/engine_plan.h"

namespace zest::scheduler {

class DraftAcceptance {
 public:
  // The sample a verdict needs. llama-server drafts up to draft_max tokens
  // per step and stops a step at its first rejected token, so tokens within
  // a step are correlated: 256 drafted tokens are a few dozen steps at the
  // usual 8 to 16 per step, enough to tell a draft that agrees most of the
  // time (real pairs: 0.6 to 0.9) from one that does not, and small
  // enough that a draft that never pays costs only a few answers.
  static constexpr uint64_t kMinDraftedTokens = 256;
  // Below this share accepted, drafting costs more than it saves. Each
  // drafted token costs a decode of the draft (a draft ~10x smaller than
  // its target: ~0.1 of a target decode) plus its place in the target's
  // verify batch (~0.05 on a GPU, ~0.15 on a CPU, where a batch is not
  // free); each accepted one saves a target decode. So drafting pays from
  // about 0.15 to 0.25 accepted per drafted token; 0.25 switches off only a
  // draft that loses even on a CPU, and leaves every pair that really
  // agrees alone.
  static constexpr double kMinPayingAcceptance = 0.25;

  // `draft_model`: zest's name for the draft (for the verdict); `watched`:
  // whether this engine's draft may be switched off (auto chose it).
  DraftAcceptance(std::string draft_model, bool watched)
      : draft_model_(std::move(draft_model)), watched_(watched) {}

  // Adds one answer's counts. Any thread.
  void Record(uint64_t drafted, uint64_t accepted);

  // Set once the draft is watched, the sample is large enough and the
  // share accepted below kMinPayingAcceptance: what was measured. Any
  // thread.
  std::optional<placement::DraftSwitchOff> SwitchOff() const;

 private:
  const std::string draft_model_;
  const bool watched_;
  mutable Mutex mu_;
  uint64_t drafted_ GUARDED_BY(mu_) = 0;
  uint64_t accepted_ GUARDED_BY(mu_) = 0;
};

}  // namespace zest::scheduler
