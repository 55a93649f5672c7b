// OpenAiApi's image generation route: POST /v1/images/generations (OpenAI's
// shape, images returned inline as `b64_json`). The body is checked here
// (image_request.h); the engine is asked in its own shape by its adapter
// (engines/engine_adapter.h), through the same admission, keep-alive,
// retries and metrics as chat.
#include <ctime>
#include <nlohmann/json.hpp>

#include "api/engine_relay.h"
#include "api/openai/errors.h"
#include "api/openai/image_request.h"
#include "api/openai/openai_api.h"

namespace zest::api::openai {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

// OpenAI's answer: {created, data: [{b64_json}], output_format, size}.
std::string ImagesJson(const engines::GeneratedImages& images, const engines::ImageJob& job) {
  nlohmann::json data = nlohmann::json::array();
  for (const std::string& b64 : images.b64) data.push_back({{"b64_json", b64}});
  nlohmann::json out = {{"created", static_cast<int64_t>(std::time(nullptr))},
                        {"data", std::move(data)},
                        {"output_format", images.output_format}};
  if (job.width > 0) out["size"] = std::to_string(job.width) + "x" + std::to_string(job.height);
  return out.dump();
}

}  // namespace

awaitable<void> OpenAiApi::GenerateImages(http::Request& r, http::ResponseWriter& w) {
  RequestObserver observer(metrics_, Api::kOpenAi, "images", "");
  co_await GenerateImagesRoute(r, w, observer);
  observer.Finish(w);
}

awaitable<void> OpenAiApi::GenerateImagesRoute(http::Request& r, http::ResponseWriter& w,
                                               RequestObserver& observer) {
  std::string param;
  auto request = ParseImageRequest(r.body, &param);
  if (!request.ok()) co_return co_await SendError(w, request.status(), param);
  auto model = registry_.Find(request->model);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  observer.SetModel(model->name);
  if (!model->error.empty()) {
    co_return co_await SendError(
        w, Internal("model '" + model->name + "' cannot be loaded: " + model->error), "model");
  }
  if (!model->info.image) {
    const Status not_image = InvalidArgument(
        "model '" + model->name +
        "' is not an image generation model (a diffusion model in safetensors); see GET "
        "/v1/models");
    co_return co_await SendError(w, not_image, "model");
  }
  auto relay = EngineJob(r, *model, request->model, request->priority, observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status(), "priority");
  relay->to_engine = [job = request->job](const engines::EngineAdapter& engine) {
    return engine.ImageCall(job);
  };
  relay->from_engine = [job = request->job, &observer](
                           const engines::EngineAdapter& engine, int status,
                           const std::string& body) -> Result<ApiAnswer> {
    ZEST_ASSIGN_OR_RETURN(engines::GeneratedImages images, engine.ReadImages(status, body));
    observer.OnImages(static_cast<int>(images.b64.size()));
    return ApiAnswer{200, "application/json", ImagesJson(images, job)};
  };
  co_await RelayToEngine(engines_, std::move(*relay), w);
}

}  // namespace zest::api::openai
