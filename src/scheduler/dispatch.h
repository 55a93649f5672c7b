// Dispatch: which of a model's instances (replicas) takes the next request.
// The one expected to finish it first: (requests in flight + 1) × its
// measured time per generated token. An instance not measured yet counts as
// fast as the best measured one, so a new replica gets traffic (and thereby
// a measurement) instead of starving behind a known one. An instance whose
// slots (its engine's --parallel) are all taken is never chosen: zest never
// sends an engine more than it runs at once. Pure; tests in dispatch_test.cc.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace zest::scheduler {

struct DispatchCandidate {
  int in_flight = 0;
  int slots = 1;                       // the engine's --parallel
  std::optional<double> per_token_ms;  // EWMA of measured generation time; unset = unmeasured
};

// The index of the candidate to send to, or nullopt when every one is full
// (or there are none). Ties go to the earlier candidate.
std::optional<std::size_t> PickInstance(const std::vector<DispatchCandidate>& candidates);

// Folds one measurement into an exponentially weighted moving average
// (weight `alpha` for the new sample); the first sample is taken as is.
double Ewma(std::optional<double> average, double sample, double alpha = 0.3);

}  // namespace zest::scheduler
