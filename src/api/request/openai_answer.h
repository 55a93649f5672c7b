// The OpenAI routes' answer: the engine's own, passed through. Every engine
// zest runs answers in OpenAI's shape, so the relay sends its events byte
// for byte (but for what relay/stream_chunk.h changes) and its whole
// answers as they are, with the model renamed to the client's where it
// differs; errors take OpenAI's error shape (errors.h).
//
// A relayed request of any API starts with these (AdmittedRelay,
// api/admit_request.h); the APIs that answer in another shape put their own in.
// The translator keeps no state, so one serves every request at once.
#pragma once

#include <memory>

#include "relay/answer_translator.h"
#include "relay/engine_relay.h"

namespace zest::api {

// The one pass-through translator, shared.
std::shared_ptr<relay::AnswerTranslator> PassThroughAnswer();

// Answers and errors in OpenAI's shape: the pass-through above and
// SendError (errors.h).
void AnswerAsOpenAi(relay::RelayRequest& request);

}  // namespace zest::api
