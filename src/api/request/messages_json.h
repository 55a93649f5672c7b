// Chat messages in OpenAI's shape read into typed messages
// (engines/chat_request.h): an OpenAI chat request's, a preset's
// (models::ModelPreset keeps its messages so) and a stored Responses
// conversation's. engines/openai_request_json.h writes them back.
//
// Typed: role, content (a string, null, absent, or parts), reasoning_content,
// tool_calls, tool_call_id. Parts are an allow-list, each of an exact shape,
// since a part reaches the engine: text {type, text, cache_control?},
// image_url {type, image_url: {url, detail?}} and input_audio {type,
// input_audio: {data, format}}; any other part type or member is refused
// (an image part zest did not recognise went past every image limit).
// Other members of a message, and tool calls in another shape, pass on
// unchanged. Refused: a message that is not an object with a string
// `role`, content of another type than those above, a part not in the list.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api {

// kInvalidArgument naming the bad message or part ("'messages' must contain
// objects with a 'role'", "messages[2].content[1]: an image part is ..."). Takes the
// JSON by value: its strings are moved, not copied.
Result<std::vector<engines::Message>> MessagesFromJson(nlohmann::json messages);

}  // namespace zest::api
