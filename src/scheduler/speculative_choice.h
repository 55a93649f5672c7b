// Which speculative decoding one load of a model gets, from its options
// (config::ModelSettings draft / speculative / draft_max / draft_min):
//   off     none;
//   ngram   the engine drafts from the text so far (no draft model);
//   mtp     the model's own multi-token-prediction heads (the GGUF must
//           carry them: <arch>.nextn_predict_layers);
//   draft   the draft model named by `draft`;
//   auto    (or unset) the draft when one is named, else the usual draft
//           the catalog names for a catalog model when it is here and
//           pairs, else MTP heads when the GGUF has them, else none; a
//           draft auto chose may be switched off later for not paying
//           (draft_acceptance.h).
// A draft must be a text model zest knows whose tokenizer is the target's
// (models/tokenizer_match.h): anything else is refused with the reason.
// Reads the two GGUF headers of a draft pairing (the token lists); thread-safe
// when `find` is.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "config/model_settings.h"
#include "core/result.h"
#include "models/model_registry.h"
#include "placement/engine_plan.h"

namespace zest::scheduler {

// A model by name, as the registry finds it.
using FindModel = std::function<Result<models::ModelEntry>(const std::string&)>;

struct SpeculativeChoice {
  placement::SpeculativePlan plan;                 // draft_device is placement's to set
  std::shared_ptr<const models::ModelInfo> draft;  // the draft's shape; null = no draft model
};

// The most tokens one step drafts when the model's options leave draft_max
// unset. The engine's own default (--spec-draft-n-max 3 in build 11669)
// caps an agreeing draft at 4 tokens a step, which paid 1.32× where 3.34×
// was there to have (issue 45; bench/speculative.mjs sweeps draft_max).
inline constexpr int kDraftModelMaxDefault = 16;
inline constexpr int kNgramMaxDefault = 16;
std::optional<int> DefaultDraftMax(placement::SpeculativeKind kind);

// kInvalidArgument with the reason ("draft 'D' for 'T' is refused: the
// draft's vocabulary has ...", or that zest does not know it).
// Without `find`, a named draft is refused (nothing to look it up in).
Result<SpeculativeChoice> ChooseSpeculative(const models::ModelEntry& target,
                                            const config::ModelSettings& settings,
                                            const FindModel& find);

}  // namespace zest::scheduler
