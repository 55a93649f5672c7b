#include "api/admit_request.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "api/key_scope.h"
#include "api/request/openai_answer.h"

namespace zest::api {

Result<scheduler::AdmitRequest> AdmitRequestFor(const http::Request& r,
                                                std::string_view body_priority,
                                                const std::string& model,
                                                std::chrono::milliseconds default_timeout) {
  scheduler::AdmitRequest admit;
  admit.model = model;
  std::string_view asked = r.Header("X-Priority");
  if (asked.empty()) asked = body_priority;
  ZEST_ASSIGN_OR_RETURN(admit.priority, RequestPriority(r, asked));
  admit.tenant = r.principal.empty() ? r.remote_address : "key:" + r.principal;
  // Milliseconds, not whole seconds: a 0.3 s deadline must not round up to
  // the 1 s heartbeat and race it.
  std::chrono::milliseconds timeout = default_timeout;
  if (std::string_view header = r.Header("X-Queue-Timeout"); !header.empty()) {
    char* end = nullptr;
    std::string text(header);
    double seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || seconds <= 0 || seconds > 86400) {
      return InvalidArgument("X-Queue-Timeout must be a number of seconds in (0, 86400]");
    }
    timeout = std::chrono::milliseconds(static_cast<long>(std::ceil(seconds * 1000)));
    // An inference key may wait less than the server's default, not more:
    // a day-long wait would hold its connection that long (issue 52, 7).
    if (r.inference_key) timeout = std::min(timeout, default_timeout);
  }
  admit.deadline = scheduler::Clock::now() + timeout;
  admit.cost = r.body.size() / 4;
  return admit;
}

Result<relay::RelayRequest> AdmittedRelay(const http::Request& request, models::ModelEntry model,
                                          std::string client_model, std::string_view body_priority,
                                          std::chrono::milliseconds default_timeout,
                                          relay::RequestObserver* observer) {
  ZEST_ASSIGN_OR_RETURN(scheduler::AdmitRequest admit,
                        AdmitRequestFor(request, body_priority, model.name, default_timeout));
  relay::RelayRequest relay;
  relay.model = std::move(model);
  relay.admit = std::move(admit);
  relay.client_model = std::move(client_model);
  relay.observer = observer;
  relay.request_id = request.id;
  AnswerAsOpenAi(relay);  // the APIs with shapes of their own put theirs in
  return relay;
}

}  // namespace zest::api
