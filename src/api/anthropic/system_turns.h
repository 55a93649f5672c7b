// System messages among an Anthropic request's turns. Claude Code sends
// them ({"role": "system"} inside `messages`: reminders, per-turn settings,
// tools added or removed mid-conversation) to models it does not know.
// Many chat templates refuse a system message anywhere but first, and one
// folded into the first would change the prompt's start, which the
// engine's prompt cache keeps, on every turn. So those before the first
// turn join the system prompt; a later one goes, as text, at the start of
// the next user turn (or as a user turn of its own at the end); one with
// clear_at "next_user_message" is left out once a user turn follows it;
// tool_addition and tool_removal blocks change the request's tools. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api::anthropic {

struct SystemTurn {
  std::string text;                       // its text blocks (or string), joined
  bool clear_at_next_user = false;        // clear_at: "next_user_message"
  std::vector<nlohmann::json> additions;  // tool_addition: tool definitions (Anthropic's shape)
  std::vector<std::string> removals;      // tool_removal: tool names
};

// A {"role": "system"} message at `where`; kInvalidArgument naming the
// field for another shape.
Result<SystemTurn> ReadSystemTurn(const nlohmann::json& message, const std::string& where);

// `text` at the start of `message` (a user turn): before its text, or as
// its first text part.
void PrependText(const std::string& text, engines::Message& message);

}  // namespace zest::api::anthropic
