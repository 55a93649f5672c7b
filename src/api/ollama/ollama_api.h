// OllamaApi: Ollama's native API, for the apps that speak it (Open WebUI,
// editors' plugins, the `ollama` libraries): GET / ("Ollama is running",
// served by webui/web_ui.h),
// GET /api/version, GET /api/tags (the models), GET /api/ps (the loaded
// ones), POST /api/show, POST /api/pull (ollama_pull.h, run by the pull
// runner every API shares), DELETE /api/delete, POST /api/copy (a new name for
// a GGUF model, as `zest add` registers one), POST /api/create (a preset of
// a model, or a GGUF path: ollama_create.h), and embeddings (POST
// /api/embed and the older
// /api/embeddings, run on the engine's OpenAI route through the same
// admission, keep-alive, relay and metrics as every API: ollama_embed.h).
// Names are Ollama's (`name:tag`, ":latest" for zest's untagged names:
// ollama_models.h); chat and generate run on the engine's chat route like
// every API's (chat_route.h, ollama_chat.h), streamed as NDJSON; errors are Ollama's {"error":
// "..."} with its status codes.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <utility>

#include "api/chat_route.h"
#include "api/model_removal.h"
#include "api/ollama/ollama_pull.h"
#include "api/pull_route.h"
#include "core/duration.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "relay/engine_relay.h"
#include "relay/inference_metrics.h"
#include "scheduler/keep_alive.h"

namespace zest::api::ollama {

// An error the HTTP layer itself produces (no route, body too large...), in
// Ollama's {"error"} shape, for the listener on Ollama's address.
std::string RenderOllamaHttpError(int status, const std::string& message);

class OllamaApi {
 public:
  using Options = ChatRouteOptions;

  // All must outlive the router; `models` deletes for /api/delete, `pulls`
  // runs /api/pull; `metrics` may be null (no metrics).
  OllamaApi(models::ModelRegistry& registry, ModelRemoval& models, PullRunner& pulls,
            relay::EngineServices engines, Options options,
            relay::InferenceMetrics* metrics = nullptr)
      : registry_(registry),
        models_(models),
        pulls_(pulls),
        engines_(engines),
        options_(std::move(options)),
        metrics_(metrics) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Tags(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Ps(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Show(http::Request& request, http::ResponseWriter& writer);
  // /api/embed, or with `legacy` /api/embeddings.
  boost::asio::awaitable<void> Embed(bool legacy, http::Request& request,
                                     http::ResponseWriter& writer);
  boost::asio::awaitable<void> EmbedRoute(bool legacy, http::Request& request,
                                          http::ResponseWriter& writer,
                                          relay::RequestObserver& observer);

  // /api/chat, or with `generate` /api/generate (ollama_chat.h).
  boost::asio::awaitable<void> Chat(bool generate, http::Request& request,
                                    http::ResponseWriter& writer);

  // DELETE /api/delete {"model"} and POST /api/copy {"source", "destination"}
  // (admin keys, as zest's own delete and add).
  boost::asio::awaitable<void> Delete(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Copy(http::Request& request, http::ResponseWriter& writer);
  // POST /api/create where it maps (ollama_create.h); 501 where it does not.
  boost::asio::awaitable<void> Create(http::Request& request, http::ResponseWriter& writer);

  models::ModelRegistry& registry_;
  ModelRemoval& models_;
  PullRunner& pulls_;
  const OllamaPullWire pull_wire_;
  relay::EngineServices engines_;
  const Options options_;
  relay::InferenceMetrics* const metrics_;
};

}  // namespace zest::api::ollama
