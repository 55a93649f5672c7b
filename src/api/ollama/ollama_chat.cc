#include "api/ollama/ollama_chat.h"

#include <ctime>
#include <deque>

#include "api/json_body.h"
#include "api/json_text.h"
#include "api/request/errors.h"
#include "api/request/request_fields.h"

namespace zest::api::ollama {
namespace {

using nlohmann::json;

// Sampling options Ollama and llama-server name alike, and Ollama's names
// for the rest; all numbers. num_predict and stop are handled on their own.
constexpr std::pair<const char*, const char*> kSamplingOptions[] = {
    {"temperature", "temperature"},
    {"top_k", "top_k"},
    {"top_p", "top_p"},
    {"min_p", "min_p"},
    {"typical_p", "typical_p"},
    {"seed", "seed"},
    {"repeat_penalty", "repeat_penalty"},
    {"repeat_last_n", "repeat_last_n"},
    {"presence_penalty", "presence_penalty"},
    {"frequency_penalty", "frequency_penalty"},
    {"mirostat", "mirostat"},
    {"mirostat_tau", "mirostat_tau"},
    {"mirostat_eta", "mirostat_eta"},
    {"num_keep", "n_keep"},
};

// The MIME type of a base64 image from its first bytes' encoding (PNG,
// JPEG, GIF, WebP), for the data URL the engine reads.
std::string ImageMime(const std::string& base64) {
  if (base64.starts_with("iVBORw0KGgo")) return "image/png";
  if (base64.starts_with("/9j/")) return "image/jpeg";
  if (base64.starts_with("R0lGOD")) return "image/gif";
  if (base64.starts_with("UklGR")) return "image/webp";
  return "image/png";
}

// `content` with `images` (base64 strings) as OpenAI's content parts.
Result<json> ContentWithImages(const std::string& content, const json& images,
                               const std::string& where) {
  if (images.is_null() || (images.is_array() && images.empty())) return json(content);
  if (!images.is_array()) return InvalidArgument(where + ".images must be a list");
  json parts = json::array();
  if (!content.empty()) parts.push_back({{"type", "text"}, {"text", content}});
  for (const json& image : images) {
    if (!image.is_string() || image.get_ref<const std::string&>().empty()) {
      return InvalidArgument(where + ".images must hold base64-encoded images");
    }
    const std::string& data = image.get_ref<const std::string&>();
    parts.push_back({{"type", "image_url"},
                     {"image_url", {{"url", "data:" + ImageMime(data) + ";base64," + data}}}});
  }
  return parts;
}

// An assistant message's tool calls ({function: {name, arguments: object}})
// in OpenAI's shape, each with an id the tool results after it answer.
Result<json> ToolCalls(const json& calls, const std::string& where, int message_index,
                       std::deque<std::pair<std::string, std::string>>& unanswered) {
  if (!calls.is_array()) return InvalidArgument(where + ".tool_calls must be a list");
  json out = json::array();
  for (const json& call : calls) {
    const json fn = call.is_object() ? call.value("function", json()) : json();
    if (!fn.is_object() || !fn.value("name", json()).is_string()) {
      return InvalidArgument(where + ".tool_calls[].function.name is required");
    }
    const json args = fn.value("arguments", json::object());
    const std::string name = fn["name"].get<std::string>();
    std::string id =
        call.value("id", json()).is_string()
            ? call["id"].get<std::string>()
            : "call_" + std::to_string(message_index) + "_" + std::to_string(out.size());
    unanswered.emplace_back(id, name);
    out.push_back({{"id", id},
                   {"type", "function"},
                   {"function",
                    {{"name", name},
                     {"arguments", args.is_string() ? args.get<std::string>() : JsonText(args)}}}});
  }
  return out;
}

// Ollama's messages as OpenAI's. A tool result answers the oldest call not
// yet answered (of its `tool_name`, when it names one).
Result<json> Messages(const json& messages) {
  if (!messages.is_array()) return InvalidArgument("messages must be a list");
  json out = json::array();
  std::deque<std::pair<std::string, std::string>> unanswered;  // call id, tool name
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) return InvalidArgument(where + " must be an object");
    ZEST_ASSIGN_OR_RETURN(std::string role, StringMember(m, "role", where));
    if (role != "system" && role != "user" && role != "assistant" && role != "tool") {
      return InvalidArgument(where + ".role must be system, user, assistant or tool");
    }
    ZEST_ASSIGN_OR_RETURN(std::string content, StringMember(m, "content", where));
    json message = {{"role", role}};
    ZEST_ASSIGN_OR_RETURN(message["content"],
                          ContentWithImages(content, m.value("images", json()), where));
    if (role == "assistant") {
      ZEST_ASSIGN_OR_RETURN(std::string thinking, StringMember(m, "thinking", where));
      if (!thinking.empty()) message["reasoning_content"] = thinking;
      if (auto calls = m.find("tool_calls"); calls != m.end() && !calls->is_null()) {
        ZEST_ASSIGN_OR_RETURN(message["tool_calls"],
                              ToolCalls(*calls, where, static_cast<int>(i), unanswered));
      }
    }
    if (role == "tool") {
      ZEST_ASSIGN_OR_RETURN(std::string tool, StringMember(m, "tool_name", where));
      auto answered = unanswered.begin();
      while (answered != unanswered.end() && !tool.empty() && answered->second != tool) ++answered;
      if (answered != unanswered.end()) {
        message["tool_call_id"] = answered->first;
        unanswered.erase(answered);
      }
    }
    out.push_back(std::move(message));
  }
  return out;
}

// `options` into the engine's request `body`; sets `max_tokens_given`.
Status ApplyOptions(const json& options, json& body, bool& max_tokens_given) {
  if (options.is_null()) return Status::Ok();
  if (!options.is_object()) return InvalidArgument("options must be an object");
  for (const auto& [ollama, engine] : kSamplingOptions) {
    auto it = options.find(ollama);
    if (it == options.end() || it->is_null()) continue;
    if (!it->is_number())
      return InvalidArgument(std::string("options.") + ollama + " must be a number");
    body[engine] = *it;
  }
  if (auto n = options.find("num_predict"); n != options.end() && !n->is_null()) {
    if (!n->is_number_integer()) return InvalidArgument("options.num_predict must be an integer");
    if (n->get<int64_t>() >= 0) {  // -1 (endless) and -2 (fill the context): zest's limit
      body["max_tokens"] = *n;
      max_tokens_given = true;
    }
  }
  if (auto stop = options.find("stop"); stop != options.end() && !stop->is_null()) {
    const bool strings =
        stop->is_array() &&
        std::all_of(stop->begin(), stop->end(), [](const json& s) { return s.is_string(); });
    if (!stop->is_string() && !strings) {
      return InvalidArgument("options.stop must be a string or strings");
    }
    body["stop"] = stop->is_string() ? json::array({*stop}) : *stop;
  }
  return Status::Ok();
}

// `format`: "json" or a JSON schema, as OpenAI's response_format.
Status ApplyFormat(const json& format, json& body) {
  if (format.is_null() || (format.is_string() && format.get_ref<const std::string&>().empty())) {
    return Status::Ok();
  }
  if (format == "json") {
    body["response_format"] = {{"type", "json_object"}};
  } else if (format.is_object()) {
    body["response_format"] = {{"type", "json_schema"},
                               {"json_schema", {{"name", "format"}, {"schema", format}}}};
  } else {
    return InvalidArgument("format must be \"json\" or a JSON schema");
  }
  return Status::Ok();
}

// llama-server's text completions ignore response_format (an OpenAI chat
// field): there the same constraint goes in its own `json_schema` field,
// which {"type": "object"} makes "any JSON object", as json_object is.
void FormatForTextCompletion(json& body) {
  const auto format = body.find("response_format");
  if (format == body.end()) return;
  json schema = (*format)["type"] == "json_object" ? json{{"type", "object"}}
                                                   : (*format)["json_schema"]["schema"];
  body.erase(format);
  body["json_schema"] = std::move(schema);
}

// `think`: true/false, or an effort ("low", "medium", "high").
Status ApplyThink(const json& think, json& body, std::optional<bool>& out) {
  if (think.is_null()) return Status::Ok();
  if (think.is_boolean()) {
    out = think.get<bool>();
  } else if (think == "low" || think == "medium" || think == "high") {
    out = true;
    body["reasoning_effort"] = think;
  } else {
    return InvalidArgument("think must be true, false, \"low\", \"medium\" or \"high\"");
  }
  body["chat_template_kwargs"] = {{"enable_thinking", *out}};
  return Status::Ok();
}

// What chat and generate share: model, stream, options, format, think,
// keep_alive, priority.
Result<ChatJob> CommonFields(const json& body) {
  ChatJob job;
  const json model = body.value("model", json());
  if (!model.is_string() || model.get<std::string>().empty()) {
    return InvalidArgument("model is required");
  }
  job.model = model.get<std::string>();
  if (auto stream = body.find("stream"); stream != body.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return InvalidArgument("stream must be true or false");
    job.stream = stream->get<bool>();
  }
  job.body = json::object();
  ZEST_RETURN_IF_ERROR(ApplyOptions(body.value("options", json()), job.body, job.max_tokens_given));
  ZEST_RETURN_IF_ERROR(ApplyFormat(body.value("format", json()), job.body));
  ZEST_RETURN_IF_ERROR(ApplyThink(body.value("think", json()), job.body, job.think));
  if (auto keep = body.find("keep_alive"); keep != body.end() && !keep->is_null()) {
    ZEST_ASSIGN_OR_RETURN(job.keep_alive, api::ParseKeepAliveField(*keep));
  }
  if (auto p = body.find("priority"); p != body.end() && p->is_string()) {
    job.priority = p->get<std::string>();
  }
  job.body["stream"] = job.stream;
  if (job.stream) job.body["stream_options"] = {{"include_usage", true}};
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

Status OptionsAsRequestFields(const json& options, json& body) {
  bool max_tokens_given = false;
  return ApplyOptions(options, body, max_tokens_given);
}

Result<json> MessagesAsOpenAi(const json& messages) { return Messages(messages); }

Result<ChatJob> ParseChatRequest(const json& body) {
  ZEST_ASSIGN_OR_RETURN(ChatJob job, CommonFields(body));
  job.engine_path = "/v1/chat/completions";
  ZEST_ASSIGN_OR_RETURN(job.body["messages"], Messages(body.value("messages", json::array())));
  if (auto tools = body.find("tools"); tools != body.end() && !tools->is_null()) {
    if (!tools->is_array()) return InvalidArgument("tools must be a list");
    if (!tools->empty()) job.body["tools"] = *tools;
  }
  return job;
}

Result<ChatJob> ParseGenerateRequest(const json& body) {
  ZEST_ASSIGN_OR_RETURN(ChatJob job, CommonFields(body));
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
  const bool raw = body.value("raw", json(false)) == true;
  if (!suffix.empty()) {  // fill in the middle: no chat template, no system
    if (images.is_array() && !images.empty()) {
      return InvalidArgument("images cannot be sent with suffix");
    }
    job.engine_path = "/v1/completions";
    FormatForTextCompletion(job.body);
    job.insert = ChatJob::Insert{prompt, suffix};
    return job;
  }
  if (raw) {
    if (images.is_array() && !images.empty()) {
      return InvalidArgument("images cannot be sent with raw: they need the chat template");
    }
    job.engine_path = "/v1/completions";
    FormatForTextCompletion(job.body);
    job.body["prompt"] = system.empty() ? prompt : system + "\n\n" + prompt;
    return job;
  }
  job.engine_path = "/v1/chat/completions";
  json messages = json::array();
  if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
  ZEST_ASSIGN_OR_RETURN(json content, ContentWithImages(prompt, images, ""));
  messages.push_back({{"role", "user"}, {"content", std::move(content)}});
  job.body["messages"] = std::move(messages);
  return job;
}

Status InsertPrompt(const std::string& model_name, const models::ModelInfo& info, ChatJob& job) {
  if (!job.insert) return Status::Ok();
  if (info.fim_prefix.empty() || info.fim_suffix.empty() || info.fim_middle.empty()) {
    return InvalidArgument("model '" + model_name +
                           "' does not support insert (it has no fill-in-the-middle tokens)");
  }
  job.body["prompt"] =
      info.fim_prefix + job.insert->prompt + info.fim_suffix + job.insert->suffix + info.fim_middle;
  return Status::Ok();
}

OllamaAnswer::OllamaAnswer(const ChatJob& job, Clock::time_point start)
    : model_(job.model),
      generate_(job.generate),
      hide_thinking_(job.think == false),
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
  line["prompt_eval_count"] =
      Count(usage, "prompt_tokens").value_or(Count(timings, "prompt_n").value_or(0));
  line["prompt_eval_duration"] = prompt_ns;
  line["eval_count"] =
      Count(usage, "completion_tokens").value_or(Count(timings, "predicted_n").value_or(0));
  line["eval_duration"] = eval_ns;
}

std::string OllamaAnswer::Chunk(const json& chunk) {
  if (!first_chunk_) first_chunk_ = Clock::now();
  const ChatChunk piece = ReadChatChunk(chunk);
  if (!piece.usage.is_null()) usage_ = piece.usage;
  if (!piece.timings.is_null()) timings_ = piece.timings;
  for (const ChatChunk::ToolCall& call : piece.tool_calls) {  // whole once finished
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
  return JsonText(Line(piece.content, piece.reasoning, calls)) + "\n";
}

std::string OllamaAnswer::End() {
  json calls = PendingToolCalls();  // a stream that never gave a finish_reason
  std::string out;
  if (!calls.empty()) out = JsonText(Line("", "", calls)) + "\n";
  json last = Line("", "", json::array());
  AddTotals(last, usage_, timings_);
  return out + JsonText(last) + "\n";
}

std::string OllamaAnswer::StreamError(const Status& status) {
  return JsonText(json{{"error", status.message()}}) + "\n";
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
  return JsonText(out);
}

}  // namespace zest::api::ollama
