#include "api/responses/responses_api.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "api/json_body.h"
#include "api/request/errors.h"
#include "api/request/messages_json.h"
#include "api/responses/responses_answer.h"
#include "api/responses/responses_request.h"
#include "engines/openai_request_json.h"
#include "relay/json_text.h"

namespace zest::api::responses {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

awaitable<void> SendError(http::ResponseWriter& w, const Status& status) {
  co_await api::SendError(w, status);
}

awaitable<void> SendJson(http::ResponseWriter& w, const json& body) {
  co_await w.Send(200, "application/json", relay::JsonText(body));
}

// The conversation the next turn continues from: what came before, this
// request's own messages (`own`, as parsed: its instructions first when it
// had some) and the answer.
json Conversation(const json& before, const json& own, bool instructions, const json& response) {
  json messages = before;
  auto from = own.begin();
  if (from != own.end() && instructions) ++from;  // not carried over
  messages.insert(messages.end(), from, own.end());
  json assistant = {{"role", "assistant"}, {"content", ""}};
  std::string text;
  for (const json& item : response["output"]) {
    if (item["type"] == "message") {
      for (const json& part : item["content"]) text += part.value("text", "");
    } else if (item["type"] == "reasoning") {
      for (const json& part : item.value("content", json::array())) {
        assistant["reasoning_content"] =
            assistant.value("reasoning_content", "") + part.value("text", "");
      }
    } else if (item["type"] == "function_call" || item["type"] == "custom_tool_call") {
      // As the model saw the tool: its flat name (client_tools.h).
      const std::string name =
          FlatToolName(item.value("namespace", std::string()), item.value("name", std::string()));
      const json arguments = item["type"] == "custom_tool_call"
                                 ? json(json{{"input", item.value("input", "")}}.dump())
                                 : item.value("arguments", json("{}"));
      assistant["tool_calls"].push_back({{"id", item["call_id"]},
                                         {"type", "function"},
                                         {"function", {{"name", name}, {"arguments", arguments}}}});
    }
  }
  assistant["content"] = text;
  messages.push_back(std::move(assistant));
  return messages;
}

}  // namespace

awaitable<void> ResponsesApi::Create(http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi, "responses", "", r.principal);
  Result<json> body = ParseJsonObject(r.body);
  Result<ResponsesJob> job =
      body.ok() ? ParseResponsesRequest(*body) : Result<ResponsesJob>(body.status());
  // The earlier turns, when it continues a stored response.
  json before = json::array();
  std::string chain;  // the first id of the chain it continues; "" = none
  // This request's own messages, before the earlier turns go in front
  // (kept for the conversation stored after it).
  json own =
      job.ok() && job->store ? engines::OpenAiMessagesJson(job->request.messages) : json::array();
  if (job.ok() && !job->previous_response_id.empty()) {
    Result<StoredResponse> previous = store_.Get(job->previous_response_id, r.principal);
    Result<std::vector<engines::Message>> earlier =
        previous.ok() ? MessagesFromJson(previous->messages)
                      : Result<std::vector<engines::Message>>(previous.status());
    if (earlier.ok()) {
      before = std::move(previous->messages);
      chain = previous->chain.empty() ? job->previous_response_id : previous->chain;
      PrependConversation(std::move(*earlier), *job);
    } else {
      job = earlier.status();
    }
  }
  Result<models::ModelEntry> model =
      job.ok() ? registry_.Find(job->request.model) : Result<models::ModelEntry>(job.status());
  if (!model.ok()) {
    co_await SendError(w, model.status());
    observer.Finish(w.status());
    co_return;
  }
  const std::string id = NewId("resp");
  // A stored conversation is a session (api/session_key.h), named by its
  // first response, unless the client names one.
  if (job->store && chain.empty()) chain = id;
  const std::string session = job->session.empty() ? chain : job->session;
  json base = job->echo;
  base["id"] = id;
  base["created_at"] = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  base["model"] = job->request.model;
  base["store"] = job->store;
  base["previous_response_id"] =
      job->previous_response_id.empty() ? json() : json(job->previous_response_id);
  base["truncation"] = "disabled";
  ResponsesAnswer::Done on_done;
  if (job->store) {
    // Kept once the answer is whole, before the client has its last event.
    on_done = [this, id, owner = r.principal, before, own, items = job->input_items, chain,
               instructions = !job->echo["instructions"].is_null()](const json& response) {
      StoredResponse record{owner, response, items,
                            Conversation(before, own, instructions, response), chain};
      if (Status put = store_.Put(id, record); !put.ok()) {
        spdlog::warn("responses: could not store {}: {}", id, put.message());
      }
    };
  }
  ChatJob chat;
  chat.model = std::move(*model);
  chat.translator = std::make_shared<ResponsesAnswer>(std::move(base), std::move(on_done),
                                                      job->tools, job->encrypted_reasoning);
  chat.request = std::move(job->request);
  chat.session = session;
  co_await RunChatJob(engines_, options_, r, w, observer, std::move(chat));
  observer.Finish(w);
}

awaitable<void> ResponsesApi::Get(http::Request& r, http::ResponseWriter& w) {
  Result<StoredResponse> stored = store_.Get(r.params.at(0), r.principal);
  if (!stored.ok()) co_return co_await SendError(w, stored.status());
  co_await SendJson(w, stored->response);
}

awaitable<void> ResponsesApi::Delete(http::Request& r, http::ResponseWriter& w) {
  const std::string id = r.params.at(0);
  Status deleted = store_.Delete(id, r.principal);
  if (!deleted.ok()) co_return co_await SendError(w, deleted);
  const json reply = {{"id", id}, {"object", "response.deleted"}, {"deleted", true}};
  co_await SendJson(w, reply);
}

awaitable<void> ResponsesApi::InputItems(http::Request& r, http::ResponseWriter& w) {
  Result<StoredResponse> stored = store_.Get(r.params.at(0), r.principal);
  if (!stored.ok()) co_return co_await SendError(w, stored.status());
  const json& items = stored->input_items;
  const json reply = {{"object", "list"},
                      {"data", items},
                      {"first_id", items.empty() ? json() : items.front().value("id", json())},
                      {"last_id", items.empty() ? json() : items.back().value("id", json())},
                      {"has_more", false}};
  co_await SendJson(w, reply);
}

void ResponsesApi::Register(http::Router& router) {
  router.Add("POST", "/v1/responses",
             [this](http::Request& r, http::ResponseWriter& w) { return Create(r, w); });
  router.Add("GET", "/v1/responses/{id}",
             [this](http::Request& r, http::ResponseWriter& w) { return Get(r, w); });
  router.Add("DELETE", "/v1/responses/{id}",
             [this](http::Request& r, http::ResponseWriter& w) { return Delete(r, w); });
  router.Add("GET", "/v1/responses/{id}/input_items",
             [this](http::Request& r, http::ResponseWriter& w) { return InputItems(r, w); });
}

}  // namespace zest::api::responses
