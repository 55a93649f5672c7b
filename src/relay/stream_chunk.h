// What zest changes in an engine's answers on the way to the client. The
// relay forwards llama-server's bytes unchanged except:
//   - the model's name: an engine that knows the model by a name of its own
//     (FastFlowLM's tag) gets that name in the request, and each answer,
//     streamed chunks included, says the name the client used; a client
//     that spelled the name differently (names resolve case-insensitively)
//     gets its own spelling back in a non-streamed answer;
//   - the role in a chat stream's first chunk: OpenAI's always has
//     `delta.role`; llama-server (build 11669) leaves it out when the first
//     tokens are held back as incomplete UTF-8 (29 of 300 streams of the
//     synthetic model; an answer that starts with a multi-byte character
//     can do it too), and the openai SDK's stream helper then fails
//     ("missing role for choice 0").
// Pure functions over JSON text, or over an event read once (engine_event.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "relay/engine_event.h"

namespace zest::relay {

// `body` (an answer) with its top-level "model" set to `name`;
// unchanged when it is not a JSON object with a "model".
std::string WithModelName(std::string body, const std::string& name);

// One streamed event's data as the client should get it, or nullopt when
// it goes unchanged: with `add_role` (the first chunk of a chat stream),
// choices[0].delta gets "role": "assistant" if it has no role; with
// `model` set, the top-level "model" becomes *model.
std::optional<std::string> FixChunk(std::string_view data, bool add_role, const std::string* model);
// The same on the relay's event, changed in place (parsed only when
// `add_role` or `model` asks for a change; marked changed only when one
// was made).
void FixChunk(EngineEvent& event, bool add_role, const std::string* model);

}  // namespace zest::relay
