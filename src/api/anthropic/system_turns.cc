#include "api/anthropic/system_turns.h"

#include "api/json_body.h"

namespace zest::api::anthropic {

using nlohmann::json;

Result<SystemTurn> ReadSystemTurn(const json& message, const std::string& where) {
  SystemTurn turn;
  turn.clear_at_next_user = message.value("clear_at", json()) == "next_user_message";
  const json content = message.value("content", json());
  if (content.is_string() || content.is_null()) {
    turn.text = content.is_string() ? content.get<std::string>() : "";
    return turn;
  }
  if (!content.is_array()) return InvalidArgument(where + ".content: a string or content blocks");
  for (std::size_t i = 0; i < content.size(); ++i) {
    const std::string at = where + ".content[" + std::to_string(i) + "]";
    const json& block = content[i];
    if (!block.is_object()) return InvalidArgument(at + ": Input should be an object");
    ZEST_ASSIGN_OR_RETURN(std::string type, StringMember(block, "type", at, true));
    if (type == "text") {
      ZEST_ASSIGN_OR_RETURN(std::string piece, StringMember(block, "text", at, true));
      if (!turn.text.empty()) turn.text += "\n";
      turn.text += piece;
    } else if (type == "tool_addition") {
      const json tool = block.value("tool", json());
      const json definition = tool.is_object() ? tool.value("definition", json()) : json();
      if (!definition.is_object()) {
        return InvalidArgument(at + ".tool.definition: Field required (a tool)");
      }
      turn.additions.push_back(definition);
    } else if (type == "tool_removal") {
      const json tool = block.value("tool", json());
      ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(tool, "name", at + ".tool", true));
      turn.removals.push_back(std::move(name));
    } else {
      return InvalidArgument(at + ".type: '" + type +
                             "' blocks are not supported in system messages");
    }
  }
  return turn;
}

void PrependText(const std::string& text, engines::Message& message) {
  if (text.empty()) return;
  if (message.content == engines::Message::Content::kParts) {
    message.parts.insert(
        message.parts.begin(),
        engines::ContentPart{.type = engines::ContentPart::Type::kText, .text = text + "\n\n"});
    return;
  }
  message.content = engines::Message::Content::kText;
  message.text = message.text.empty() ? text : text + "\n\n" + message.text;
}

}  // namespace zest::api::anthropic
