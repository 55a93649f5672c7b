#include "api/anthropic/messages_request.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "api/anthropic/system_turns.h"
#include "api/json_body.h"
#include "relay/json_text.h"

namespace zest::api::anthropic {
namespace {

using nlohmann::json;

using engines::ContentPart;
using engines::Message;

// An image block's source as an image part: {type: "base64", media_type,
// data} or {type: "url", url}, nothing else (a source zest does not read
// must not pass as one it does), and Anthropic's four image types. Whatever
// media_type says, the bytes' own header decides (api/chat_images.h).
Result<ContentPart> ImagePart(const json& block, const std::string& where) {
  const json source = block.value("source", json());
  if (!source.is_object()) return InvalidArgument(where + ".source: Field required");
  if (!OnlyMembers(block, {"type", "source", "cache_control"})) {
    return InvalidArgument(where + ": an image block holds type, source and cache_control only");
  }
  ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(source, "type", where + ".source", true));
  std::string url;
  if (type == "base64") {
    if (!OnlyMembers(source, {"type", "media_type", "data"})) {
      return InvalidArgument(where + ".source: a base64 source holds type, media_type and data");
    }
    ZEST_ASSIGN_OR_RETURN(std::string media,
                          StringMember(source, "media_type", where + ".source", true));
    if (media != "image/jpeg" && media != "image/png" && media != "image/gif" &&
        media != "image/webp") {
      return InvalidArgument(where +
                             ".source.media_type: Input should be 'image/jpeg', 'image/png', "
                             "'image/gif' or 'image/webp'");
    }
    ZEST_ASSIGN_OR_RETURN(std::string data, StringMember(source, "data", where + ".source", true));
    url = "data:" + media + ";base64," + data;
  } else if (type == "url") {
    if (!OnlyMembers(source, {"type", "url"})) {
      return InvalidArgument(where + ".source: a url source holds type and url");
    }
    ZEST_ASSIGN_OR_RETURN(url, StringMember(source, "url", where + ".source", true));
  } else {
    return InvalidArgument(where + ".source.type: '" + type + "' is not supported (base64 or url)");
  }
  return ContentPart{.type = ContentPart::Type::kImage, .url = std::move(url)};
}

// Text and image blocks (a user turn's, an assistant's) as a message's
// content: a string when it is text only.
struct Parts {
  std::vector<ContentPart> parts;
  bool images = false;
  void SetContent(Message& message) && {
    if (images) {
      message.content = Message::Content::kParts;
      message.parts = std::move(parts);
      return;
    }
    message.content = Message::Content::kText;
    for (const ContentPart& part : parts) message.text += part.text;
  }
};

// A tool_result's content: a string, or text and image blocks. Its text
// is the tool message; its images go to `parts`, the user turn that
// follows the tool messages (a chat template's tool message holds text).
Result<std::string> ToolResultContent(const json& block, const std::string& where, Parts& parts) {
  const json content = block.value("content", json(""));
  std::string text;
  if (content.is_string()) {
    text = content.get<std::string>();
  } else if (content.is_array()) {
    for (std::size_t i = 0; i < content.size(); ++i) {
      const std::string at = where + ".content[" + std::to_string(i) + "]";
      if (!content[i].is_object()) return InvalidArgument(at + ": Input should be an object");
      ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(content[i], "type", at, true));
      if (type == "image") {
        ZEST_ASSIGN_OR_RETURN(ContentPart image, ImagePart(content[i], at));
        parts.parts.push_back(std::move(image));
        parts.images = true;
        continue;
      }
      if (type != "text") {
        return InvalidArgument(at + ".type: tool results hold text and images, not '" + type + "'");
      }
      ZEST_ASSIGN_OR_RETURN(std::string piece, StringMember(content[i], "text", at, true));
      text += piece;
    }
  } else if (!content.is_null()) {
    return InvalidArgument(where + ".content: a string or content blocks");
  }
  if (block.value("is_error", json(false)) == true) text = "Error: " + text;
  return text;
}

// One block of a message into `parts`, `turn` (the assistant's reasoning
// and tool calls) or, for a tool result, `out`.
Status AddBlock(const json& block, const std::string& role, const std::string& at, Parts& parts,
                Message& turn, std::vector<Message>& out) {
  if (!block.is_object()) return InvalidArgument(at + ": Input should be an object");
  ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(block, "type", at, true));
  if (type == "text") {
    ZEST_ASSIGN_OR_RETURN(std::string text, StringMember(block, "text", at, true));
    parts.parts.push_back({.type = ContentPart::Type::kText, .text = std::move(text)});
  } else if (type == "image") {
    ZEST_ASSIGN_OR_RETURN(ContentPart image, ImagePart(block, at));
    parts.parts.push_back(std::move(image));
    parts.images = true;
  } else if (type == "tool_use" && role == "assistant") {
    ZEST_ASSIGN_OR_RETURN(std::string id, StringMember(block, "id", at, true));
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(block, "name", at, true));
    turn.tool_calls.push_back({.id = std::move(id),
                               .name = std::move(name),
                               .arguments = relay::JsonText(block.value("input", json::object()))});
  } else if (type == "tool_result" && role == "user") {
    ZEST_ASSIGN_OR_RETURN(std::string id, StringMember(block, "tool_use_id", at, true));
    ZEST_ASSIGN_OR_RETURN(std::string result, ToolResultContent(block, at, parts));
    // A tool message answers the assistant turn just before.
    Message tool = Message::Text("tool", std::move(result));
    tool.tool_call_id = std::move(id);
    out.push_back(std::move(tool));
  } else if (type == "thinking" && role == "assistant") {
    ZEST_ASSIGN_OR_RETURN(std::string text, StringMember(block, "thinking", at));
    turn.reasoning += text;
  } else if (type != "redacted_thinking" || role != "assistant") {
    // (Redacted thinking is encrypted by Anthropic: nothing a local model can read.)
    return InvalidArgument(at + ".type: '" + type + "' blocks are not supported in " + role +
                           " messages");
  }
  return Status::Ok();
}

// `system` (at `where`): a string or text blocks.
Result<std::string> SystemText(const json& system, const std::string& where) {
  if (system.is_null() || system.is_string())
    return system.is_null() ? "" : system.get<std::string>();
  if (!system.is_array()) return InvalidArgument(where + ": a string or text blocks");
  std::string text;
  for (std::size_t i = 0; i < system.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!system[i].is_object() || system[i].value("type", json()) != "text") {
      return InvalidArgument(at + ".type: system blocks are text");
    }
    ZEST_ASSIGN_OR_RETURN(std::string piece, StringMember(system[i], "text", at, true));
    if (!text.empty()) text += "\n";
    text += piece;
  }
  return text;
}

// One user or assistant message as messages, appended to `out`.
Status AddMessage(const json& message, const std::string& where, const std::string& role,
                  std::vector<Message>& out) {
  const json content = message.value("content", json());
  if (content.is_string()) {
    out.push_back(Message::Text(role, content.get<std::string>()));
    return Status::Ok();
  }
  if (!content.is_array()) return InvalidArgument(where + ".content: a string or content blocks");
  Parts parts;
  Message turn;
  turn.role = role;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const std::string at = where + ".content[" + std::to_string(i) + "]";
    ZEST_RETURN_IF_ERROR(AddBlock(content[i], role, at, parts, turn, out));
  }
  if (role == "user" && parts.parts.empty()) return Status::Ok();
  std::move(parts).SetContent(turn);
  out.push_back(std::move(turn));
  return Status::Ok();
}

// The turns of `messages`, appended to `out`: user and assistant messages,
// and system messages placed as system_turns.h says (before the first turn:
// to `system`; later: at the start of the next user turn). Each system
// message read goes to `system_turns` too, for its tool changes.
Status AddTurns(const json& messages, std::string& system, std::vector<Message>& out,
                std::vector<SystemTurn>& system_turns) {
  std::string pending;  // later system text, for the next user turn
  bool started = false;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::string where = "messages[" + std::to_string(i) + "]";
    const json& message = messages[i];
    if (!message.is_object()) return InvalidArgument(where + ": Input should be an object");
    ZEST_ASSIGN_OR_RETURN(std::string role, StringMember(message, "role", where, true));
    if (role == "system") {
      ZEST_ASSIGN_OR_RETURN(SystemTurn turn, ReadSystemTurn(message, where));
      const bool user_follows = std::any_of(
          messages.begin() + static_cast<std::ptrdiff_t>(i) + 1, messages.end(),
          [](const json& m) { return m.is_object() && m.value("role", json()) == "user"; });
      std::string& into = started ? pending : system;
      if (!turn.text.empty() && !(turn.clear_at_next_user && user_follows)) {
        into += (into.empty() ? "" : "\n\n") + turn.text;
      }
      system_turns.push_back(std::move(turn));
      continue;
    }
    if (role != "user" && role != "assistant") {
      return InvalidArgument(where + ".role: Input should be 'user', 'assistant' or 'system'");
    }
    const std::size_t before = out.size();
    ZEST_RETURN_IF_ERROR(AddMessage(message, where, role, out));
    started = true;
    if (role == "user" && !pending.empty() && out.size() > before && out.back().role == "user") {
      PrependText(pending, out.back());
      pending.clear();
    }
  }
  if (!pending.empty()) out.push_back(Message::Text("user", std::move(pending)));
  return Status::Ok();
}

// What only Anthropic's servers run: a code execution container and
// remote MCP servers. Asked for, they change what the answer is, so they
// are refused, naming the field.
Status RefuseWhatRunsElsewhere(const json& body) {
  for (const char* key : {"container", "mcp_servers"}) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null() || (it->is_array() && it->empty())) continue;
    return InvalidArgument(std::string(key) +
                           ": runs on Anthropic's servers; a local model has none");
  }
  return Status::Ok();
}

// Tools Anthropic's servers run (web search and fetch, code execution),
// versioned by date ("web_search_20250305"): left out of the prompt, as a
// local model cannot run them; refused only when tool_choice forces one.
bool IsServerTool(const std::string& type) {
  for (const char* prefix : {"web_search_", "web_fetch_", "code_execution_"}) {
    if (type.starts_with(prefix)) return true;
  }
  return false;
}

// The custom tools as functions; the server tools' names to `server`.
Result<std::vector<engines::Tool>> Tools(const json& tools, std::set<std::string>& server) {
  if (!tools.is_array()) return InvalidArgument("tools: Input should be a list");
  std::vector<engines::Tool> out;
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const json& tool = tools[i];
    const std::string at = "tools[" + std::to_string(i) + "]";
    if (!tool.is_object()) return InvalidArgument(at + ": Input should be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(tool, "type", at));
    if (IsServerTool(type)) {
      ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(tool, "name", at));
      server.insert(name);
      continue;
    }
    if (!type.empty() && type != "custom") {
      return InvalidArgument(at + ".type: '" + type +
                             "' is a tool Anthropic defines without a schema, which zest does "
                             "not offer a local model");
    }
    engines::Tool function;
    ZEST_ASSIGN_OR_RETURN(function.name, StringMember(tool, "name", at, true));
    function.parameters = tool.value("input_schema", json());
    if (!function.parameters.is_object()) {
      return InvalidArgument(at + ".input_schema: Field required");
    }
    ZEST_ASSIGN_OR_RETURN(function.description, StringMember(tool, "description", at));
    out.push_back(std::move(function));
  }
  return out;
}

// Tools added and removed by system messages mid-conversation, in order,
// over the request's own.
Status ApplyToolChanges(const std::vector<SystemTurn>& turns, std::set<std::string>& server,
                        std::vector<engines::Tool>& tools) {
  for (const SystemTurn& turn : turns) {
    if (!turn.additions.empty()) {
      ZEST_ASSIGN_OR_RETURN(std::vector<engines::Tool> added, Tools(json(turn.additions), server));
      for (engines::Tool& tool : added) {
        std::erase_if(tools, [&](const engines::Tool& t) { return t.name == tool.name; });
        tools.push_back(std::move(tool));
      }
    }
    for (const std::string& name : turn.removals) {
      std::erase_if(tools, [&](const engines::Tool& t) { return t.name == name; });
    }
  }
  return Status::Ok();
}

Status ApplyToolChoice(const json& choice, engines::ChatRequest& request) {
  using Mode = engines::ToolChoice::Mode;
  if (choice.is_null()) return Status::Ok();
  if (!choice.is_object()) return InvalidArgument("tool_choice: Input should be an object");
  ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(choice, "type", "tool_choice", true));
  if (type == "auto") {
    request.tool_choice = engines::ToolChoice{Mode::kAuto};
  } else if (type == "any") {
    request.tool_choice = engines::ToolChoice{Mode::kRequired};
  } else if (type == "none") {
    request.tool_choice = engines::ToolChoice{Mode::kNone};
  } else if (type == "tool") {
    ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(choice, "name", "tool_choice", true));
    request.tool_choice = engines::ToolChoice{Mode::kFunction, std::move(name)};
  } else {
    return InvalidArgument("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
  }
  if (choice.value("disable_parallel_tool_use", json(false)) == true) {
    request.parallel_tool_calls = false;
  }
  return Status::Ok();
}

// thinking {"type": "enabled", "budget_tokens"}, checked as Anthropic does
// (at least 1024, below max_tokens), becomes llama-server's per-request
// reasoning budget: past it the engine closes the reasoning and answers.
// `max_tokens` is null when counting tokens.
Status ApplyThinkingBudget(const json& thinking, const json& max_tokens,
                           engines::ChatRequest& request) {
  const json budget = thinking.value("budget_tokens", json());
  if (!budget.is_number_integer()) {
    return InvalidArgument("thinking.enabled.budget_tokens: Field required (an integer)");
  }
  if (budget.get<int64_t>() < 1024) {
    return InvalidArgument(
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
  }
  if (max_tokens.is_number_integer() && budget.get<int64_t>() >= max_tokens.get<int64_t>()) {
    return InvalidArgument("max_tokens must be greater than thinking.budget_tokens");
  }
  request.thinking_budget = budget.get<int64_t>();
  return Status::Ok();
}

// Sampling: max_tokens, stop_sequences, temperature, top_p, top_k, thinking.
Status ApplySampling(const json& body, bool count_only, engines::ChatRequest& request) {
  const json max_tokens = body.value("max_tokens", json());
  if (!count_only) {
    if (!max_tokens.is_number_integer() || max_tokens.get<int64_t>() < 1) {
      return InvalidArgument("max_tokens: Field required (an integer of at least 1)");
    }
    request.max_tokens = max_tokens.get<int64_t>();
  }
  if (auto stop = body.find("stop_sequences"); stop != body.end() && !stop->is_null()) {
    if (!stop->is_array() ||
        !std::all_of(stop->begin(), stop->end(), [](const json& s) { return s.is_string(); })) {
      return InvalidArgument("stop_sequences: Input should be a list of strings");
    }
    if (!stop->empty()) request.sampling.stop = stop->get<std::vector<std::string>>();
  }
  for (const char* key : {"temperature", "top_p", "top_k"}) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_number()) return InvalidArgument(std::string(key) + ": Input should be a number");
    const double value = it->get<double>();
    if (key == std::string_view("top_k")) {
      request.sampling.top_k = static_cast<int64_t>(value);
    } else {
      (key == std::string_view("top_p") ? request.sampling.top_p : request.sampling.temperature) =
          value;
    }
  }
  if (auto thinking = body.find("thinking"); thinking != body.end() && !thinking->is_null()) {
    const json type = thinking->is_object() ? thinking->value("type", json()) : json();
    if (type != "enabled" && type != "disabled" && type != "adaptive") {
      return InvalidArgument("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'");
    }
    request.thinking = type != "disabled";
    if (type == "enabled")
      ZEST_RETURN_IF_ERROR(ApplyThinkingBudget(*thinking, max_tokens, request));
  }
  return Status::Ok();
}

}  // namespace

Result<engines::ChatRequest> ParseMessagesRequest(const json& body, bool count_only) {
  engines::ChatRequest request;
  ZEST_ASSIGN_OR_RETURN(request.model, StringMember(body, "model", "", true));
  if (request.model.empty()) return InvalidArgument("model: Field required");
  if (auto stream = body.find("stream"); stream != body.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return InvalidArgument("stream: Input should be a valid boolean");
    request.stream = stream->get<bool>() && !count_only;
  }
  ZEST_RETURN_IF_ERROR(ApplySampling(body, count_only, request));
  ZEST_RETURN_IF_ERROR(RefuseWhatRunsElsewhere(body));
  ZEST_ASSIGN_OR_RETURN(std::string system, SystemText(body.value("system", json()), "system"));
  const json in = body.value("messages", json());
  if (!in.is_array()) return InvalidArgument("messages: Field required (a list)");
  std::vector<SystemTurn> system_turns;  // their tool changes, applied below
  std::vector<Message> turns;
  ZEST_RETURN_IF_ERROR(AddTurns(in, system, turns, system_turns));
  if (!system.empty()) request.messages.push_back(Message::Text("system", std::move(system)));
  std::move(turns.begin(), turns.end(), std::back_inserter(request.messages));
  std::set<std::string> server_tools;
  if (auto tools = body.find("tools"); tools != body.end() && !tools->is_null()) {
    ZEST_ASSIGN_OR_RETURN(request.tools, Tools(*tools, server_tools));
  }
  ZEST_RETURN_IF_ERROR(ApplyToolChanges(system_turns, server_tools, request.tools));
  ZEST_RETURN_IF_ERROR(ApplyToolChoice(body.value("tool_choice", json()), request));
  if (request.tool_choice && request.tool_choice->mode == engines::ToolChoice::Mode::kFunction &&
      server_tools.contains(request.tool_choice->function)) {
    return InvalidArgument("tool_choice.name: '" + request.tool_choice->function +
                           "' is a tool Anthropic's servers run; a local model cannot");
  }
  if (auto p = body.find("priority"); p != body.end() && p->is_string()) {
    request.priority = p->get<std::string>();
  }
  request.include_usage = request.stream;
  return request;
}

std::string SessionOf(const json& body) {
  const json metadata = body.is_object() ? body.value("metadata", json()) : json();
  const json user = metadata.is_object() ? metadata.value("user_id", json()) : json();
  return user.is_string() ? user.get<std::string>() : "";
}

}  // namespace zest::api::anthropic
