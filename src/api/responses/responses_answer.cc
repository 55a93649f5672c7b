#include "api/responses/responses_answer.h"

#include "api/request/errors.h"
#include "api/responses/responses_request.h"
#include "relay/json_text.h"

namespace zest::api::responses {
namespace {

using nlohmann::json;

uint64_t Count(const json& object, const char* key) {
  const json value = object.is_object() ? object.value(key, json()) : json();
  return value.is_number_unsigned() ? value.get<uint64_t>() : 0;
}

json MessageItem(const std::string& id) {
  return {{"type", "message"},
          {"id", id},
          {"status", "in_progress"},
          {"role", "assistant"},
          {"content", json::array()}};
}

json TextPart(const std::string& text) {
  return {{"type", "output_text"}, {"text", text}, {"annotations", json::array()}};
}

json ReasoningItem(const std::string& id) {
  return {{"type", "reasoning"}, {"id", id}, {"summary", json::array()}};
}

// A call of `tool` as the client declared it: a function_call (with its
// namespace, when not the default) or a custom_tool_call.
json CallItem(const std::string& call_id, const ClientTool& tool) {
  json item = tool.custom ? json{{"type", "custom_tool_call"},
                                 {"id", NewId("ctc")},
                                 {"call_id", call_id},
                                 {"name", tool.name},
                                 {"input", ""}}
                          : json{{"type", "function_call"},
                                 {"id", NewId("fc")},
                                 {"call_id", call_id},
                                 {"name", tool.name},
                                 {"arguments", ""}};
  if (!tool.ns.empty()) item["namespace"] = tool.ns;
  item["status"] = "in_progress";
  return item;
}

}  // namespace

json ResponsesUsage(const json& usage) {
  const json details = usage.is_object() ? usage.value("prompt_tokens_details", json()) : json();
  const uint64_t in = Count(usage, "prompt_tokens");
  const uint64_t out = Count(usage, "completion_tokens");
  return {{"input_tokens", in},
          {"input_tokens_details", {{"cached_tokens", Count(details, "cached_tokens")}}},
          {"output_tokens", out},
          {"output_tokens_details", {{"reasoning_tokens", 0}}},
          {"total_tokens", in + out}};
}

ResponsesAnswer::ResponsesAnswer(json base, Done on_done, ClientTools tools,
                                 bool encrypted_reasoning)
    : response_(std::move(base)),
      on_done_(std::move(on_done)),
      tools_(std::move(tools)),
      encrypted_reasoning_(encrypted_reasoning) {
  response_["object"] = "response";
  response_["status"] = "in_progress";
  response_["output"] = json::array();
  response_["usage"] = nullptr;
  response_["error"] = nullptr;
  response_["incomplete_details"] = nullptr;
}

std::string ResponsesAnswer::Event(json data) {
  data["sequence_number"] = sequence_++;
  return "event: " + data["type"].get<std::string>() + "\ndata: " + relay::JsonText(data) + "\n\n";
}

std::string ResponsesAnswer::Start() {
  if (started_) return "";
  started_ = true;
  // One after the other: the operands of + have no order of evaluation.
  std::string out = Event({{"type", "response.created"}, {"response", response_}});
  out += Event({{"type", "response.in_progress"}, {"response", response_}});
  return out;
}

std::string ResponsesAnswer::Open(Item kind, json item) {
  std::string out = Close();
  open_ = kind;
  item_ = std::move(item);
  text_.clear();
  const int index = static_cast<int>(output_.size());
  out += Event({{"type", "response.output_item.added"}, {"output_index", index}, {"item", item_}});
  if (kind == Item::kMessage) {
    out += Event({{"type", "response.content_part.added"},
                  {"item_id", item_["id"]},
                  {"output_index", index},
                  {"content_index", 0},
                  {"part", TextPart("")}});
  }
  return out;
}

std::string ResponsesAnswer::Close() {
  if (open_ == Item::kNone) return "";
  const int index = static_cast<int>(output_.size());
  const json id = item_["id"];
  std::string out;
  if (open_ == Item::kMessage) {
    out += Event({{"type", "response.output_text.done"},
                  {"item_id", id},
                  {"output_index", index},
                  {"content_index", 0},
                  {"text", text_}});
    out += Event({{"type", "response.content_part.done"},
                  {"item_id", id},
                  {"output_index", index},
                  {"content_index", 0},
                  {"part", TextPart(text_)}});
    item_["content"] = json::array({TextPart(text_)});
    item_["status"] = "completed";
  } else if (open_ == Item::kReasoning) {
    out += Event({{"type", "response.reasoning_text.done"},
                  {"item_id", id},
                  {"output_index", index},
                  {"content_index", 0},
                  {"text", text_}});
    item_["content"] = json::array({{{"type", "reasoning_text"}, {"text", text_}}});
    if (encrypted_reasoning_) item_["encrypted_content"] = ReasoningBlob(text_);
  } else if (open_ == Item::kCustomCall) {
    // Its input is a string inside the arguments the model wrote: sent
    // whole once they are (a delta, then done).
    const std::string input = CustomToolInput(text_);
    out += Event({{"type", "response.custom_tool_call_input.delta"},
                  {"item_id", id},
                  {"output_index", index},
                  {"delta", input}});
    out += Event({{"type", "response.custom_tool_call_input.done"},
                  {"item_id", id},
                  {"output_index", index},
                  {"input", input}});
    item_["input"] = input;
    item_["status"] = "completed";
  } else {
    out += Event({{"type", "response.function_call_arguments.done"},
                  {"item_id", id},
                  {"output_index", index},
                  {"arguments", text_}});
    item_["arguments"] = text_;
    item_["status"] = "completed";
  }
  out += Event({{"type", "response.output_item.done"}, {"output_index", index}, {"item", item_}});
  output_.push_back(std::move(item_));
  open_ = Item::kNone;
  return out;
}

std::string ResponsesAnswer::Chunk(const json& chunk) {
  std::string out = Start();
  const relay::ChatChunk piece = relay::ReadChatChunk(chunk);
  if (!piece.usage.is_null()) usage_ = piece.usage;
  auto text_delta = [&](const std::string& text, Item kind) {
    if (text.empty()) return;
    const bool message = kind == Item::kMessage;
    if (open_ != kind) {
      out += Open(kind, message ? MessageItem(NewId("msg")) : ReasoningItem(NewId("rs")));
    }
    text_ += text;
    out +=
        Event({{"type", message ? "response.output_text.delta" : "response.reasoning_text.delta"},
               {"item_id", item_["id"]},
               {"output_index", output_.size()},
               {"content_index", 0},
               {"delta", text}});
  };
  text_delta(piece.reasoning, Item::kReasoning);
  text_delta(piece.content, Item::kMessage);
  for (const relay::ChatChunk::ToolCall& call : piece.tool_calls) {
    const bool in_call = open_ == Item::kFunctionCall || open_ == Item::kCustomCall;
    if (!in_call || call.index != tool_index_) {
      tool_index_ = call.index;
      const ClientTool tool = tools_.Find(call.name);
      out += Open(tool.custom ? Item::kCustomCall : Item::kFunctionCall,
                  CallItem(call.id.empty() ? NewId("call") : call.id, tool));
    }
    if (open_ == Item::kCustomCall) {
      text_ += call.arguments;  // its input goes out whole (Close)
    } else if (!call.arguments.empty()) {
      text_ += call.arguments;
      out += Event({{"type", "response.function_call_arguments.delta"},
                    {"item_id", item_["id"]},
                    {"output_index", output_.size()},
                    {"delta", call.arguments}});
    }
  }
  if (piece.finish_reason == "length") incomplete_ = true;
  return out;
}

json ResponsesAnswer::Finished() const {
  json response = response_;
  response["status"] = incomplete_ ? "incomplete" : "completed";
  if (incomplete_) response["incomplete_details"] = {{"reason", "max_output_tokens"}};
  response["output"] = output_;
  response["usage"] = ResponsesUsage(usage_);
  return response;
}

std::string ResponsesAnswer::End() {
  std::string out = Start();
  out += Close();
  json response = Finished();
  if (on_done_) on_done_(response);
  const char* type = incomplete_ ? "response.incomplete" : "response.completed";
  return out + Event({{"type", type}, {"response", std::move(response)}});
}

std::string ResponsesAnswer::StreamError(const Status& status) {
  const api::ApiError e = api::MapStatus(status);
  return Event(
      {{"type", "error"}, {"code", e.code}, {"message", status.message()}, {"param", nullptr}});
}

Result<std::string> ResponsesAnswer::Whole(const json& answer) {
  const json choices = answer.value("choices", json::array());
  if (!choices.is_array() || choices.empty() || !choices[0].is_object()) {
    return EngineFailed("the engine's answer has no choices");
  }
  const json& choice = choices[0];
  const json message = choice.value("message", json::object());
  if (const json reasoning = message.value("reasoning_content", json()); reasoning.is_string()) {
    json item = ReasoningItem(NewId("rs"));
    item["content"] = json::array({{{"type", "reasoning_text"}, {"text", reasoning}}});
    if (encrypted_reasoning_)
      item["encrypted_content"] = ReasoningBlob(reasoning.get<std::string>());
    output_.push_back(std::move(item));
  }
  if (const json text = message.value("content", json());
      text.is_string() && !text.get_ref<const std::string&>().empty()) {
    json item = MessageItem(NewId("msg"));
    item["status"] = "completed";
    item["content"] = json::array({TextPart(text)});
    output_.push_back(std::move(item));
  }
  const json calls = message.value("tool_calls", json::array());
  for (std::size_t i = 0; calls.is_array() && i < calls.size(); ++i) {
    const json fn = calls[i].value("function", json::object());
    const json id = calls[i].value("id", json());
    const json name = fn.value("name", json());
    const json arguments = fn.value("arguments", json());
    const ClientTool tool = tools_.Find(name.is_string() ? name.get<std::string>() : "");
    json item = CallItem(id.is_string() ? id.get<std::string>() : NewId("call"), tool);
    const std::string text = arguments.is_string() ? arguments.get<std::string>() : "";
    if (tool.custom) {
      item["input"] = CustomToolInput(text);
    } else {
      item["arguments"] = text;
    }
    item["status"] = "completed";
    output_.push_back(std::move(item));
  }
  incomplete_ = choice.value("finish_reason", json()) == "length";
  usage_ = answer.value("usage", json());
  json response = Finished();
  if (on_done_) on_done_(response);
  return relay::JsonText(response);
}

}  // namespace zest::api::responses
