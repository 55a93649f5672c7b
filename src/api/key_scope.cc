#include "api/key_scope.h"

#include <algorithm>

namespace zest::api {

Result<scheduler::Priority> RequestPriority(const http::Request& request, std::string_view asked) {
  scheduler::Priority ceiling = scheduler::Priority::kHigh;
  if (request.inference_key) {
    ceiling = scheduler::Priority::kNormal;
    if (!request.default_priority.empty()) {
      ZEST_ASSIGN_OR_RETURN(ceiling, scheduler::ParsePriority(request.default_priority));
    }
  }
  std::string_view text = !asked.empty() ? asked : request.default_priority;
  scheduler::Priority priority = scheduler::Priority::kNormal;
  if (!text.empty()) {
    ZEST_ASSIGN_OR_RETURN(priority, scheduler::ParsePriority(text));
  }
  // kHigh is 0: a larger value is a lower priority.
  return std::max(priority, ceiling);
}

std::optional<Duration> AllowedKeepAlive(const http::Request& request,
                                         const std::optional<Duration>& asked,
                                         const Duration& max) {
  if (!asked || !request.inference_key || !max) return asked;  // max forever: no cap
  if (!*asked || **asked > *max) return max;
  return asked;
}

}  // namespace zest::api
