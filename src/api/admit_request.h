// Who waits how, for a request of any API: its queue priority (the
// X-Priority header, else the body's field, else the API key's; an
// inference key's is a ceiling: key_scope.h), its tenant (the key's name,
// else the client's address), its deadline (X-Queue-Timeout in seconds, else
// the server's default) and its cost (the body's size over 4, a rough count
// of prompt tokens). Pure.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/result.h"
#include "http/request.h"
#include "relay/engine_relay.h"
#include "relay/inference_metrics.h"
#include "scheduler/admission.h"

namespace zest::api {

// kInvalidArgument for a bad priority or X-Queue-Timeout.
Result<scheduler::AdmitRequest> AdmitRequestFor(const http::Request& request,
                                                std::string_view body_priority,
                                                const std::string& model,
                                                std::chrono::milliseconds default_timeout);

// A relay request for `model` as the client named it (`client_model`),
// admitted as above, seen by `observer` (may be null), answering in
// OpenAI's shape (request/openai_answer.h); the caller adds what it asks of
// the engine, and its own translator and error sender. The one place a
// relay request is started.
Result<relay::RelayRequest> AdmittedRelay(const http::Request& request, models::ModelEntry model,
                                          std::string client_model, std::string_view body_priority,
                                          std::chrono::milliseconds default_timeout,
                                          relay::RequestObserver* observer);

}  // namespace zest::api
