#include "relay/stream_resume.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "relay/json_text.h"

namespace zest::relay {
namespace {

using nlohmann::json;

Status CannotResume(std::string why) { return {ErrorCode::kUnsupported, std::move(why)}; }

// choices[0] of a chunk, or null.
const json* FirstChoice(const json& chunk) {
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return nullptr;
  return &(*choices)[0];
}

bool HasFinish(const json& chunk) {
  const json* choice = FirstChoice(chunk);
  if (choice == nullptr) return false;
  auto finish = choice->find("finish_reason");
  return finish != choice->end() && !finish->is_null();
}

bool NonEmpty(const json& delta, const char* key) {
  auto it = delta.find(key);
  if (it == delta.end() || it->is_null()) return false;
  return !(it->is_string() && it->get_ref<const std::string&>().empty()) &&
         !(it->is_array() && it->empty());
}

}  // namespace

void StreamResume::Sent(std::string_view data) {
  if (overflow_ || data == "[DONE]") return;
  kept_bytes_ += data.size();
  if (kept_bytes_ > kMaxKeptBytes) {
    overflow_ = true;
    events_.clear();
    return;
  }
  events_.emplace_back(data);
}

bool StreamResume::Finished() const {
  for (const std::string& data : events_) {
    json chunk = json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (chunk.is_object() && HasFinish(chunk)) return true;
  }
  return false;
}

Result<engines::ChatRequest> StreamResume::Continuation(const engines::ChatRequest& request) {
  if (overflow_) return CannotResume("the answer so far is too long to resume");
  for (const std::string& data : events_) {
    json chunk = json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (!chunk.is_object()) continue;
    if (!have_identity_) {
      id_ = chunk.value("id", "");
      created_ = chunk.value("created", int64_t{0});
      have_identity_ = true;
    }
    auto choices = chunk.find("choices");
    if (choices != chunk.end() && choices->is_array() && choices->size() > 1) {
      return CannotResume("an answer with several choices cannot be resumed");
    }
    const json* choice = FirstChoice(chunk);
    if (choice == nullptr) continue;
    if (choice->value("index", 0) != 0) {
      return CannotResume("an answer with several choices cannot be resumed");
    }
    auto delta = choice->find("delta");
    if (delta == choice->end() || !delta->is_object()) continue;
    if (NonEmpty(*delta, "tool_calls") || NonEmpty(*delta, "reasoning_content")) {
      return CannotResume("a tool call or reasoning cannot be resumed");
    }
    if (auto content = delta->find("content"); content != delta->end() && content->is_string()) {
      text_ += content->get_ref<const std::string&>();
      ++sent_tokens_;
    }
  }
  events_.clear();
  kept_bytes_ = 0;

  if (request.kind != engines::Capability::kChat) {
    return CannotResume("only chat requests are resumed");
  }
  if (engines::Choices(request) != 1) return CannotResume("several choices cannot be resumed");
  engines::ChatRequest rest = request;
  if (!text_.empty()) {
    // The client's own prefill (a final assistant message) grows by what
    // the engine said after it; else the answer so far becomes one.
    engines::Message* last = rest.messages.empty() ? nullptr : &rest.messages.back();
    if (last != nullptr && last->role == "assistant" &&
        last->content == engines::Message::Content::kText) {
      last->text += text_;
    } else {
      rest.messages.push_back(engines::Message::Text("assistant", text_));
    }
  }
  // The answer's limit, less what the client has of it (at least 1: an
  // engine generates at least one token).
  if (rest.max_tokens && *rest.max_tokens > 0) {
    limit_reached_ = sent_tokens_ >= *rest.max_tokens;
    rest.max_tokens = std::max<int64_t>(1, *rest.max_tokens - sent_tokens_);
  }
  continuing_ = true;
  return rest;
}

std::optional<std::string> StreamResume::Continue(std::string_view data) {
  if (data == "[DONE]") return std::string(data);
  json chunk = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (!chunk.is_object()) return std::string(data);
  if (have_identity_) {
    if (chunk.contains("id")) chunk["id"] = id_;
    if (chunk.contains("created")) chunk["created"] = created_;
  }
  auto choices = chunk.find("choices");
  if (choices != chunk.end() && choices->is_array() && !choices->empty()) {
    json& choice = (*choices)[0];
    if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
      delta->erase("role");                         // the client had it in the first chunk
      if (limit_reached_) delta->erase("content");  // past the limit: the client has it all
      // A role-only chunk (content null) says nothing new.
      bool empty = true;
      for (const auto& [key, value] : delta->items()) empty = empty && value.is_null();
      const bool finish = choice.contains("finish_reason") && !choice["finish_reason"].is_null();
      if (empty && !finish && !chunk.contains("usage")) return std::nullopt;
      if (finish && limit_reached_) choice["finish_reason"] = "length";
    }
  }
  if (auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
    // The engine counted the text it was handed as prompt; it is answer.
    const int64_t prompt = usage->value("prompt_tokens", int64_t{0});
    const int64_t completion = usage->value("completion_tokens", int64_t{0});
    const int64_t moved = std::min(prompt, sent_tokens_);
    // Past the limit, the continuation's token was not passed on.
    const int64_t answer = sent_tokens_ + (limit_reached_ ? 0 : completion);
    (*usage)["prompt_tokens"] = prompt - moved;
    (*usage)["completion_tokens"] = answer;
    (*usage)["total_tokens"] = prompt - moved + answer;
  }
  return JsonText(chunk);
}

}  // namespace zest::relay
