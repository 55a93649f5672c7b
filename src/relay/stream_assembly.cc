#include "relay/stream_assembly.h"

#include "relay/json_text.h"

namespace zest::relay {
namespace {

using nlohmann::json;

// Appends `key`'s string value in `from`, if it has one, to `to`.
void AppendString(const json& from, const char* key, std::string& to) {
  auto it = from.find(key);
  if (it != from.end() && it->is_string()) to += it->get_ref<const std::string&>();
}

int IndexOf(const json& item) {
  auto it = item.find("index");
  return it != item.end() && it->is_number_integer() ? it->get<int>() : 0;
}

}  // namespace

StreamAssembler::StreamAssembler(bool chat) : chat_(chat) {
  head_["object"] = chat_ ? "chat.completion" : "text_completion";
}

void StreamAssembler::Add(std::string_view data) {
  EngineEvent event(data);
  Add(event);
}

void StreamAssembler::Add(EngineEvent& event) {
  if (event.data().empty() || event.done()) return;
  const json& chunk = event.Doc();
  if (!chunk.is_object()) return;
  if (auto error = chunk.find("error"); error != chunk.end()) {
    error_ = std::string(event.Text());
    auto code = error->is_object() ? error->find("code") : error->end();
    if (code != error->end() && code->is_number_integer()) {
      int status = code->get<int>();
      if (status >= 400 && status <= 599) error_status_ = status;
    }
    return;
  }
  ++chunks_;
  for (const char* key : {"id", "created", "system_fingerprint"}) {
    if (!head_.contains(key) && chunk.contains(key)) head_[key] = chunk[key];
  }
  if (auto choices = chunk.find("choices"); choices != chunk.end() && choices->is_array()) {
    for (const json& choice : *choices) {
      if (choice.is_object()) AddChoice(choice);
    }
  }
  if (auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
    usage_ = *usage;
  }
  if (auto timings = chunk.find("timings"); timings != chunk.end() && timings->is_object()) {
    timings_ = *timings;
  }
}

void StreamAssembler::AddChoice(const json& in) {
  Choice& choice = choices_[IndexOf(in)];
  if (auto delta = in.find("delta"); delta != in.end() && delta->is_object()) {
    AppendString(*delta, "content", choice.content);
    AppendString(*delta, "reasoning_content", choice.reasoning);
    if (auto calls = delta->find("tool_calls"); calls != delta->end() && calls->is_array()) {
      for (const json& call : *calls) {
        if (!call.is_object()) continue;
        ToolCall& tool = choice.tool_calls[IndexOf(call)];
        if (auto id = call.find("id"); id != call.end() && id->is_string()) tool.id = *id;
        if (auto type = call.find("type"); type != call.end() && type->is_string())
          tool.type = *type;
        if (auto fn = call.find("function"); fn != call.end() && fn->is_object()) {
          AppendString(*fn, "name", tool.name);
          AppendString(*fn, "arguments", tool.arguments);
        }
      }
    }
  }
  AppendString(in, "text", choice.text);
  if (auto logprobs = in.find("logprobs"); logprobs != in.end()) {
    choice.has_logprobs_key = true;
    auto content = logprobs->is_object() ? logprobs->find("content") : logprobs->end();
    if (content != logprobs->end() && content->is_array()) {
      json& all = choice.logprobs["content"];
      if (!all.is_array()) all = json::array();
      all.insert(all.end(), content->begin(), content->end());
    }
  }
  if (auto reason = in.find("finish_reason"); reason != in.end() && !reason->is_null()) {
    choice.finish_reason = *reason;
  }
}

std::string StreamAssembler::Finish(const std::string& model) const {
  json out = head_;
  out["model"] = model;
  json& choices = out["choices"] = json::array();
  for (const auto& [index, in] : choices_) {
    json choice = {{"index", index}, {"finish_reason", in.finish_reason}};
    if (chat_) {
      json message = {{"role", "assistant"}};
      if (!in.reasoning.empty()) message["reasoning_content"] = in.reasoning;
      // As a non-streamed answer has it: no text beside tool calls is null.
      message["content"] = in.content.empty() && !in.tool_calls.empty() ? json() : json(in.content);
      if (!in.tool_calls.empty()) {
        json& calls = message["tool_calls"] = json::array();
        for (const auto& [call_index, call] : in.tool_calls) {
          json tool = {{"type", call.type.is_null() ? json("function") : call.type},
                       {"function", {{"name", call.name}, {"arguments", call.arguments}}}};
          if (!call.id.is_null()) tool["id"] = call.id;
          calls.push_back(std::move(tool));
        }
      }
      choice["message"] = std::move(message);
    } else {
      choice["text"] = in.text;
    }
    if (in.has_logprobs_key) choice["logprobs"] = in.logprobs;
    choices.push_back(std::move(choice));
  }
  if (!usage_.is_null()) out["usage"] = usage_;
  if (!timings_.is_null()) out["timings"] = timings_;
  return JsonText(out);
}

}  // namespace zest::relay
