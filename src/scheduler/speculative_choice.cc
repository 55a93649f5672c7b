#include "scheduler/speculative_choice.h"

#include <optional>

#include "models/tokenizer_match.h"

namespace zest::scheduler {
namespace {

using placement::SpeculativeKind;

Result<SpeculativeChoice> WithDraft(const models::ModelEntry& target,
                                    const config::ModelSettings& settings, const FindModel& find) {
  const std::string refused =
      "draft '" + settings.draft + "' for '" + target.name + "' is refused: ";
  if (!find) return InvalidArgument(refused + "no model registry to find it in");
  Result<models::ModelEntry> draft = find(settings.draft);
  if (!draft.ok()) return InvalidArgument(refused + draft.status().message());
  if (draft->name == target.name) return InvalidArgument(refused + "it is the model itself");
  if (!draft->error.empty()) return InvalidArgument(refused + draft->error);
  const models::ModelInfo& info = draft->info;
  if (info.embedding || info.reranker || info.speech || info.image) {
    return InvalidArgument(refused + "it is not a model that writes text");
  }
  if (Status same = models::CheckSameTokenizer(target.path, draft->path); !same.ok()) {
    return InvalidArgument(refused + same.message());
  }
  SpeculativeChoice choice;
  choice.plan.kind = SpeculativeKind::kDraft;
  choice.plan.draft_model = draft->name;
  choice.plan.draft_file = draft->path.string();
  choice.draft = std::make_shared<const models::ModelInfo>(info);
  return choice;
}

// The usual draft the catalog names for a catalog model (`zest pull NAME
// --with-draft` brings it), when it is here and pairs: `auto`'s draft
// without a `draft` option. Anything that keeps it from pairing leaves the
// model to the next choice, quietly: nobody asked for this draft. The
// registry took it from the catalog it named the entry from
// (ModelEntry::catalog_draft).
std::optional<SpeculativeChoice> CatalogDraft(const models::ModelEntry& target,
                                              const config::ModelSettings& settings,
                                              const FindModel& find) {
  if (target.catalog_draft.empty() || !find) return std::nullopt;
  config::ModelSettings with_draft = settings;
  with_draft.draft = target.catalog_draft;
  Result<SpeculativeChoice> choice = WithDraft(target, with_draft, find);
  if (!choice.ok()) return std::nullopt;
  return std::move(*choice);
}

}  // namespace

std::optional<int> DefaultDraftMax(placement::SpeculativeKind kind) {
  switch (kind) {
    case SpeculativeKind::kDraft:
      return kDraftModelMaxDefault;
    case SpeculativeKind::kNgram:
      return kNgramMaxDefault;
    default:
      return std::nullopt;  // MTP drafts as many as the model has heads for
  }
}

Result<SpeculativeChoice> ChooseSpeculative(const models::ModelEntry& target,
                                            const config::ModelSettings& settings,
                                            const FindModel& find) {
  const std::string mode = settings.speculative.empty() ? "auto" : settings.speculative;
  SpeculativeChoice choice;
  if (mode == "off") return choice;
  if (settings.draft_max && settings.draft_min && *settings.draft_min > *settings.draft_max) {
    return InvalidArgument("draft_min (" + std::to_string(*settings.draft_min) +
                           ") is above draft_max (" + std::to_string(*settings.draft_max) +
                           ") for '" + target.name + "'");
  }
  if (mode == "draft" && settings.draft.empty()) {
    return InvalidArgument("speculative = \"draft\" for '" + target.name +
                           "' needs a draft model (the option draft)");
  }
  std::optional<SpeculativeChoice> usual;
  if (mode == "draft" || (mode == "auto" && !settings.draft.empty())) {
    ZEST_ASSIGN_OR_RETURN(choice, WithDraft(target, settings, find));
  } else if (mode == "auto" && (usual = CatalogDraft(target, settings, find))) {
    choice = std::move(*usual);
  } else if (mode == "ngram") {
    choice.plan.kind = SpeculativeKind::kNgram;
  } else if (mode == "mtp" || mode == "auto") {
    const bool heads = target.info.mtp_layers > 0;
    if (mode == "mtp" && !heads) {
      return InvalidArgument("speculative = \"mtp\" for '" + target.name +
                             "': its GGUF has no multi-token-prediction heads");
    }
    if (heads) choice.plan.kind = SpeculativeKind::kMtp;
  }
  if (choice.plan.kind != SpeculativeKind::kNone) {
    choice.plan.max_tokens =
        settings.draft_max ? settings.draft_max : DefaultDraftMax(choice.plan.kind);
    choice.plan.min_tokens = settings.draft_min;
    choice.plan.chosen_by_auto = mode == "auto";
  }
  return choice;
}

}  // namespace zest::scheduler
