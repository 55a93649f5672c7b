// An instance's measured speeds, from the `timings` llama-server reports
// with an answer or a stream's closing event: generation time per token
// (dispatch weighs replicas by it), prompt time per token (the
// prefill/decode split sends prompts by it), and a draft model's drafted
// and accepted tokens (whether `auto` keeps it: scheduler/draft_acceptance.h).
#pragma once

#include <string_view>

#include "relay/inference_metrics.h"
#include "scheduler/instance.h"

namespace zest::relay {

// Folds the speeds `json` (one answer or SSE event) reports into
// `instance`'s moving averages. Events without timings are not parsed.
// Returns the tokens of the turn it closes (prompt and answer: what the
// slot holds now) when it reports them, else 0.
uint64_t MeasureSpeed(scheduler::Instance& instance, std::string_view json);
// The same from counts read already (ParseTokenUsage of the answer or event).
uint64_t RecordSpeed(scheduler::Instance& instance, const TokenUsage& usage);

}  // namespace zest::relay
