#include "scheduler/draft_acceptance.h"

namespace zest::scheduler {

void DraftAcceptance::Record(uint64_t drafted, uint64_t accepted) {
  if (!watched_ || drafted == 0) return;
  MutexLock lock(mu_);
  drafted_ += drafted;
  accepted_ += accepted < drafted ? accepted : drafted;
}

std::optional<placement::DraftSwitchOff> DraftAcceptance::SwitchOff() const {
  if (!watched_) return std::nullopt;
  MutexLock lock(mu_);
  if (drafted_ < kMinDraftedTokens) return std::nullopt;
  const double acceptance = static_cast<double>(accepted_) / static_cast<double>(drafted_);
  if (acceptance >= kMinPayingAcceptance) return std::nullopt;
  return placement::DraftSwitchOff{
      .draft_model = draft_model_, .acceptance = acceptance, .drafted = drafted_};
}

}  // namespace zest::scheduler
