// Chat messages in OpenAI's shape read into typed messages
// (engines/chat_request.h): an OpenAI chat request's, a preset's
// (models::ModelPreset keeps its messages so) and a stored Responses
// conversation's. engines/openai_request_json.h writes them back.
//
// Typed: role, content (a string, null, absent, or parts: text, and images
// by URL), reasoning_content, tool_calls, tool_call_id. What does not fit
// that model passes on unchanged rather than failing here: other members
// of a message or part, parts of other types (audio, files), tool calls
// in another shape. Refused: a message that is not an object with a string
// `role`, and content of another type than those above.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api {

// kInvalidArgument naming the bad message ("'messages' must contain
// objects with a 'role'", "messages[2].content must be ..."). Takes the
// JSON by value: its strings are moved, not copied.
Result<std::vector<engines::Message>> MessagesFromJson(nlohmann::json messages);

}  // namespace zest::api
