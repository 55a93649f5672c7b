#include "api/ollama/ollama_chat.h"

#include <algorithm>
#include <ctime>
#include <deque>

#include "api/json_body.h"
#include "api/request/errors.h"
#include "api/request/request_fields.h"
#include "api/request/sampling_fields.h"
#include "api/request/tools_json.h"
#include "relay/json_text.h"

namespace zest::api::ollama {
namespace {

using nlohmann::json;

// The MIME type of a base64 image from its first bytes' encoding (PNG,
// JPEG, GIF, WebP), for the data URL the engine reads.
std::string ImageMime(const std::string& base64) {
  if (base64.starts_with("iVBORw0KGgo")) return "image/png";
  if (base64.starts_with("/9j/")) return "image/jpeg";
  if (base64.starts_with("R0lGOD")) return "image/gif";
  if (base64.starts_with("UklGR")) return "image/webp";
  return "image/png";
}

// `content` with `images` (base64 strings) as a message's content: text
// alone, or a text part (when there is text) and image parts.
Status SetContent(std::string content, const json& images, const std::string& where,
                  engines::Message& message) {
  message.content = engines::Message::Content::kText;
  if (images.is_null() || (images.is_array() && images.empty())) {
    message.text = std::move(content);
    return Status::Ok();
  }
  if (!images.is_array()) return InvalidArgument(where + ".images must be a list");
  message.content = engines::Message::Content::kParts;
  if (!content.empty()) {
    message.parts.push_back(
        {.type = engines::ContentPart::Type::kText, .text = std::move(content)});
  }
  for (const json& image : images) {
    if (!image.is_string() || image.get_ref<const std::string&>().empty()) {
      return InvalidArgument(where + ".images must hold base64-encoded images");
    }
    const std::string& data = image.get_ref<const std::string&>();
    message.parts.push_back({.type = engines::ContentPart::Type::kImage,
                             .url = "data:" + ImageMime(data) + ";base64," + data});
  }
  return Status::Ok();
}

// An assistant message's tool calls ({function: {name, arguments: object}}),
// each with an id the tool results after it answer.
Result<std::vector<engines::ToolCall>> ToolCalls(
    const json& calls, const std::string& where, int message_index,
    std::deque<std::pair<std::string, std::string>>& unanswered) {
  if (!calls.is_array()) return InvalidArgument(where + ".tool_calls must be a list");
  std::vector<engines::ToolCall> out;
  for (const json& call : calls) {
    const json fn = call.is_object() ? call.value("function", json()) : json();
    if (!fn.is_object() || !fn.value("name", json()).is_string()) {
      return InvalidArgument(where + ".tool_calls[].function.name is required");
    }
    const json args = fn.value("arguments", json::object());
    std::string name = fn["name"].get<std::string>();
    std::string id =
        call.value("id", json()).is_string()
            ? call["id"].get<std::string>()
            : "call_" + std::to_string(message_index) + "_" + std::to_string(out.size());
    unanswered.emplace_back(id, name);
    out.push_back(
        {.id = std::move(id),
         .name = std::move(name),
         .arguments = args.is_string() ? args.get<std::string>() : relay::JsonText(args)});
  }
  return out;
}

// One Ollama message; `unanswered` holds the calls no tool result answered
// yet (call id, tool name).
Result<engines::Message> ReadMessage(const json& m, std::size_t i,
                                     std::deque<std::pair<std::string, std::string>>& unanswered) {
  const std::string where = "messages[" + std::to_string(i) + "]";
  if (!m.is_object()) return InvalidArgument(where + " must be an object");
  engines::Message message;
  ZEST_ASSIGN_OR_RETURN(message.role, StringMember(m, "role", where));
  const std::string& role = message.role;
  if (role != "system" && role != "user" && role != "assistant" && role != "tool") {
    return InvalidArgument(where + ".role must be system, user, assistant or tool");
  }
  ZEST_ASSIGN_OR_RETURN(std::string content, StringMember(m, "content", where));
  ZEST_RETURN_IF_ERROR(SetContent(std::move(content), m.value("images", json()), where, message));
  if (role == "assistant") {
    ZEST_ASSIGN_OR_RETURN(message.reasoning, StringMember(m, "thinking", where));
    if (auto calls = m.find("tool_calls"); calls != m.end() && !calls->is_null()) {
      ZEST_ASSIGN_OR_RETURN(message.tool_calls,
                            ToolCalls(*calls, where, static_cast<int>(i), unanswered));
    }
  }
  if (role == "tool") {
    // A tool result answers the oldest call not yet answered (of its
    // `tool_name`, when it names one).
    ZEST_ASSIGN_OR_RETURN(std::string tool, StringMember(m, "tool_name", where));
    auto answered = unanswered.begin();
    while (answered != unanswered.end() && !tool.empty() && answered->second != tool) ++answered;
    if (answered != unanswered.end()) {
      message.tool_call_id = answered->first;
      unanswered.erase(answered);
    }
  }
  return message;
}

// `format`: "json" or a JSON schema, as OpenAI's response_format.
Status ReadFormat(const json& format, engines::ChatRequest& request) {
  if (format.is_null() || (format.is_string() && format.get_ref<const std::string&>().empty())) {
    return Status::Ok();
  }
  if (format == "json") {
    request.response_format = {{"type", "json_object"}};
  } else if (format.is_object()) {
    request.response_format = {{"type", "json_schema"},
                               {"json_schema", {{"name", "format"}, {"schema", format}}}};
  } else {
    return InvalidArgument("format must be \"json\" or a JSON schema");
  }
  return Status::Ok();
}

// `think`: true/false, or an effort ("low", "medium", "high").
Status ReadThink(const json& think, engines::ChatRequest& request) {
  if (think.is_null()) return Status::Ok();
  if (think.is_boolean()) {
    request.thinking = think.get<bool>();
  } else if (think == "low" || think == "medium" || think == "high") {
    request.thinking = true;
    request.reasoning_effort = think.get<std::string>();
  } else {
    return InvalidArgument("think must be true, false, \"low\", \"medium\" or \"high\"");
  }
  return Status::Ok();
}

// What chat and generate share: model, stream, options, format, think,
// keep_alive, priority.
Result<OllamaRequest> CommonFields(const json& body) {
  OllamaRequest job;
  engines::ChatRequest& request = job.request;
  const json model = body.value("model", json());
  if (!model.is_string() || model.get<std::string>().empty()) {
    return InvalidArgument("model is required");
  }
  request.model = model.get<std::string>();
  request.stream = true;  // Ollama's default
  if (auto stream = body.find("stream"); stream != body.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return InvalidArgument("stream must be true or false");
    request.stream = stream->get<bool>();
  }
  ZEST_RETURN_IF_ERROR(
      ReadOllamaOptions(body.value("options", json()), request.sampling, request.max_tokens));
  ZEST_RETURN_IF_ERROR(ReadFormat(body.value("format", json()), request));
  ZEST_RETURN_IF_ERROR(ReadThink(body.value("think", json()), request));
  if (auto keep = body.find("keep_alive"); keep != body.end() && !keep->is_null()) {
    ZEST_ASSIGN_OR_RETURN(request.keep_alive, api::ParseKeepAliveField(*keep));
  }
  if (auto p = body.find("priority"); p != body.end() && p->is_string()) {
    request.priority = p->get<std::string>();
  }
  request.include_usage = request.stream;  // real counts in the last line
  return job;
}

// "2026-12-04T19:40:04.123456789Z": now, as Ollama's created_at.
std::string NowRfc3339() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now);
  const std::time_t t = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[48];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(text + n, sizeof text - n, ".%09lldZ",
                static_cast<long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now - seconds).count()));
  return text;
}

int64_t Nanos(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

// A count from `object`'s `key`, nullopt when it has none.
std::optional<int64_t> Count(const json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const json value = object.value(key, json());
  if (!value.is_number()) return std::nullopt;
  return value.get<int64_t>();
}

// The prompt tokens the engine evaluated, as Ollama's prompt_eval_count
// means them: the prompt less what came from the engine's prompt cache.
int64_t EvaluatedPromptTokens(const json& usage, const json& timings) {
  if (std::optional<int64_t> prompt = Count(usage, "prompt_tokens")) {
    const json details = usage.value("prompt_tokens_details", json());
    return std::max<int64_t>(*prompt - Count(details, "cached_tokens").value_or(0), 0);
  }
  return Count(timings, "prompt_n").value_or(0);
}

// OpenAI's finish_reason as Ollama's done_reason.
std::string DoneReason(const json& finish_reason) {
  return finish_reason == "length" ? "length" : "stop";
}

// A tool call's arguments as Ollama sends them: an object (the text as it
// is when it is not JSON).
json Arguments(const std::string& text) {
  if (text.empty()) return json::object();
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? json(text) : parsed;
}

}  // namespace

Result<std::vector<engines::Message>> ReadMessages(const json& messages) {
  if (!messages.is_array()) return InvalidArgument("messages must be a list");
  std::vector<engines::Message> out;
  std::deque<std::pair<std::string, std::string>> unanswered;  // call id, tool name
  for (std::size_t i = 0; i < messages.size(); ++i) {
    ZEST_ASSIGN_OR_RETURN(engines::Message message, ReadMessage(messages[i], i, unanswered));
    out.push_back(std::move(message));
  }
  return out;
}

Result<OllamaRequest> ParseChatRequest(const json& body) {
  ZEST_ASSIGN_OR_RETURN(OllamaRequest job, CommonFields(body));
  ZEST_ASSIGN_OR_RETURN(job.request.messages, ReadMessages(body.value("messages", json::array())));
  ZEST_ASSIGN_OR_RETURN(job.request.tools, ToolsFromJson(body.value("tools", json())));
  return job;
}

Result<OllamaRequest> ParseGenerateRequest(const json& body) {
  ZEST_ASSIGN_OR_RETURN(OllamaRequest job, CommonFields(body));
  job.generate = true;
  ZEST_ASSIGN_OR_RETURN(std::string prompt, StringMember(body, "prompt", ""));
  ZEST_ASSIGN_OR_RETURN(std::string system, StringMember(body, "system", ""));
  ZEST_ASSIGN_OR_RETURN(std::string suffix, StringMember(body, "suffix", ""));
  ZEST_ASSIGN_OR_RETURN(std::string tmpl, StringMember(body, "template", ""));
  if (!tmpl.empty()) {
    return InvalidArgument(
        "template is not supported: zest applies the model's own chat template (send `raw` "
        "with a formatted prompt instead)");
  }
  if (const json context = body.value("context", json());
      !context.is_null() && !(context.is_array() && context.empty())) {
    return InvalidArgument("context is not supported: send the conversation to /api/chat");
  }
  const json images = body.value("images", json());
  const bool has_images = images.is_array() && !images.empty();
  const bool raw = body.value("raw", json(false)) == true;
  engines::ChatRequest& request = job.request;
  if (!suffix.empty()) {  // fill in the middle: no chat template, no system
    if (has_images) return InvalidArgument("images cannot be sent with suffix");
    request.kind = engines::Capability::kCompletions;
    job.insert = OllamaRequest::Insert{prompt, suffix};
    return job;
  }
  if (raw) {
    if (has_images) {
      return InvalidArgument("images cannot be sent with raw: they need the chat template");
    }
    request.kind = engines::Capability::kCompletions;
    request.prompt = system.empty() ? prompt : system + "\n\n" + prompt;
    return job;
  }
  if (!system.empty()) request.messages.push_back(engines::Message::Text("system", system));
  engines::Message user;
  user.role = "user";
  ZEST_RETURN_IF_ERROR(SetContent(std::move(prompt), images, "", user));
  request.messages.push_back(std::move(user));
  return job;
}

Status InsertPrompt(const std::string& model_name, const models::ModelInfo& info,
                    OllamaRequest& job) {
  if (!job.insert) return Status::Ok();
  if (info.fim_prefix.empty() || info.fim_suffix.empty() || info.fim_middle.empty()) {
    return InvalidArgument("model '" + model_name +
                           "' does not support insert (it has no fill-in-the-middle tokens)");
  }
  job.request.prompt =
      info.fim_prefix + job.insert->prompt + info.fim_suffix + job.insert->suffix + info.fim_middle;
  return Status::Ok();
}

OllamaAnswer::OllamaAnswer(const OllamaRequest& job, Clock::time_point start)
    : model_(job.request.model),
      generate_(job.generate),
      hide_thinking_(job.request.thinking == false),
      start_(start) {}

json OllamaAnswer::Line(const std::string& content, const std::string& thinking,
                        const json& tool_calls) const {
  json line = {{"model", model_}, {"created_at", NowRfc3339()}};
  const bool with_thinking = !thinking.empty() && !hide_thinking_;
  if (generate_) {
    line["response"] = content;
    if (with_thinking) line["thinking"] = thinking;
  } else {
    json message = {{"role", "assistant"}, {"content", content}};
    if (with_thinking) message["thinking"] = thinking;
    if (!tool_calls.empty()) message["tool_calls"] = tool_calls;
    line["message"] = std::move(message);
  }
  line["done"] = false;
  return line;
}

json OllamaAnswer::PendingToolCalls() {
  json calls = json::array();
  for (const auto& [index, call] : tool_calls_) {
    json fn = {{"index", index}, {"name", call.name}, {"arguments", Arguments(call.arguments)}};
    json out = {{"function", std::move(fn)}};
    if (!call.id.empty()) out["id"] = call.id;
    calls.push_back(std::move(out));
  }
  tool_calls_.clear();
  return calls;
}

void OllamaAnswer::AddTotals(json& line, const json& usage, const json& timings) const {
  const int64_t total = Nanos(Clock::now() - start_);
  const int64_t prompt_ns =
      static_cast<int64_t>(timings.is_object() ? timings.value("prompt_ms", 0.0) * 1e6 : 0);
  const int64_t eval_ns =
      static_cast<int64_t>(timings.is_object() ? timings.value("predicted_ms", 0.0) * 1e6 : 0);
  // Before the engine began on the prompt: to the first chunk less the
  // prompt's processing, or (whole) what the engine's own times leave.
  const int64_t before =
      first_chunk_ ? Nanos(*first_chunk_ - start_) - prompt_ns : total - prompt_ns - eval_ns;
  line["done"] = true;
  line["done_reason"] = done_reason_;
  line["total_duration"] = total;
  line["load_duration"] = std::max<int64_t>(before, 0);
  line["prompt_eval_count"] = EvaluatedPromptTokens(usage, timings);
  line["prompt_eval_duration"] = prompt_ns;
  line["eval_count"] =
      Count(usage, "completion_tokens").value_or(Count(timings, "predicted_n").value_or(0));
  line["eval_duration"] = eval_ns;
}

std::string OllamaAnswer::Chunk(const json& chunk) {
  if (!first_chunk_) first_chunk_ = Clock::now();
  const relay::ChatChunk piece = relay::ReadChatChunk(chunk);
  if (!piece.usage.is_null()) usage_ = piece.usage;
  if (!piece.timings.is_null()) timings_ = piece.timings;
  for (const relay::ChatChunk::ToolCall& call : piece.tool_calls) {  // whole once finished
    ToolCall& to = tool_calls_[call.index];
    if (!call.id.empty()) to.id = call.id;
    to.name += call.name;
    to.arguments += call.arguments;
  }
  json calls = json::array();
  if (piece.finish_reason) {
    done_reason_ = DoneReason(*piece.finish_reason);
    calls = PendingToolCalls();  // complete now
  }
  const bool thinking = !piece.reasoning.empty() && !hide_thinking_;
  if (piece.content.empty() && !thinking && calls.empty()) return "";
  return relay::JsonText(Line(piece.content, piece.reasoning, calls)) + "\n";
}

std::string OllamaAnswer::End() {
  json calls = PendingToolCalls();  // a stream that never gave a finish_reason
  std::string out;
  if (!calls.empty()) out = relay::JsonText(Line("", "", calls)) + "\n";
  json last = Line("", "", json::array());
  AddTotals(last, usage_, timings_);
  return out + relay::JsonText(last) + "\n";
}

std::string OllamaAnswer::StreamError(const Status& status) {
  return relay::JsonText(json{{"error", status.message()}}) + "\n";
}

Result<std::string> OllamaAnswer::Whole(const json& answer) {
  const json choices = answer.value("choices", json::array());
  if (!choices.is_array() || choices.empty() || !choices[0].is_object()) {
    return EngineFailed("the engine's answer has no choices");
  }
  const json& choice = choices[0];
  std::string content, thinking;
  json calls = json::array();
  if (const json message = choice.value("message", json()); message.is_object()) {
    if (message.value("content", json()).is_string()) content = message["content"];
    if (message.value("reasoning_content", json()).is_string()) {
      thinking = message["reasoning_content"];
    }
    const json tool_calls = message.value("tool_calls", json::array());
    for (std::size_t i = 0; i < tool_calls.size() && tool_calls.is_array(); ++i) {
      const json fn = tool_calls[i].value("function", json::object());
      json out = {{"function",
                   {{"index", i},
                    {"name", fn.value("name", "")},
                    {"arguments", Arguments(fn.value("arguments", ""))}}}};
      if (tool_calls[i].value("id", json()).is_string()) out["id"] = tool_calls[i]["id"];
      calls.push_back(std::move(out));
    }
  } else if (choice.value("text", json()).is_string()) {
    content = choice["text"];
  }
  done_reason_ = DoneReason(choice.value("finish_reason", json()));
  json out = Line(content, thinking, calls);
  AddTotals(out, answer.value("usage", json()), answer.value("timings", json()));
  return relay::JsonText(out);
}

}  // namespace zest::api::ollama
