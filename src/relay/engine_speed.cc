#include "relay/engine_speed.h"

#include "relay/inference_metrics.h"

namespace zest::relay {
namespace {

// A prompt of a few tokens says little about prefill speed.
constexpr uint64_t kMinPromptTokensMeasured = 16;

}  // namespace

uint64_t MeasureSpeed(scheduler::Instance& instance, std::string_view json) {
  if (json.find("\"timings\"") == std::string_view::npos) return 0;
  return RecordSpeed(instance, ParseTokenUsage(json));
}

uint64_t RecordSpeed(scheduler::Instance& instance, const TokenUsage& usage) {
  if (usage.predicted_per_second && *usage.predicted_per_second > 0) {
    instance.RecordPerTokenMs(1000.0 / *usage.predicted_per_second);
  }
  if (usage.prompt_per_second && usage.prompt >= usage.cached + kMinPromptTokensMeasured) {
    instance.RecordPromptMsPerToken(1000.0 / *usage.prompt_per_second);
  }
  if (instance.draft_acceptance && usage.draft_n) {
    instance.draft_acceptance->Record(*usage.draft_n, usage.draft_accepted.value_or(0));
  }
  return usage.found ? usage.prompt + usage.completion : 0;
}

}  // namespace zest::relay
