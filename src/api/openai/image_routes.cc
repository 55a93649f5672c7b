// OpenAiApi's image generation route: POST /v1/images/generations (OpenAI's
// shape, images returned inline as `b64_json`). The body is checked here
// (image_request.h); the engine is asked in its own shape by its adapter
// (engines/engine_adapter.h), through the same admission, keep-alive,
// retries and metrics as chat. Engines make PNG; jpeg and webp are made
// from it here by the image converter (engines/image_converter.h), on its
// own threads, after the engine's slot is given back.
#include <ctime>
#include <nlohmann/json.hpp>

#include "api/openai/image_request.h"
#include "api/openai/openai_api.h"
#include "api/request/errors.h"
#include "core/base64.h"
#include "relay/engine_relay.h"

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

// OpenAI's default output_compression: the best quality.
constexpr int kDefaultImageQuality = 100;

}  // namespace

awaitable<void> OpenAiApi::GenerateImages(http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi, "images", "", r.principal);
  co_await GenerateImagesRoute(r, w, observer);
  observer.Finish(w);
}

// jpeg and webp need the converter: refused before the request queues when
// zest has none, naming what to install; png never needs it.
Status OpenAiApi::CheckImageFormat(const ImageRequest& request) const {
  if (request.output_format == "png") return Status::Ok();
  const engines::EngineSet* set = engines_.engines;
  const engines::ImageConverter* converter = set ? set->image_converter() : nullptr;
  Status available =
      converter != nullptr ? converter->Available() : Unavailable("zest has no image converter");
  if (available.ok()) return available;
  return InvalidArgument("output_format " + request.output_format + " is not available here: " +
                         available.message() + "; png needs nothing more");
}

awaitable<void> OpenAiApi::GenerateImagesRoute(http::Request& r, http::ResponseWriter& w,
                                               relay::RequestObserver& observer) {
  std::string param;
  auto request = ParseImageRequest(r.body, &param);
  if (!request.ok()) co_return co_await SendError(w, request.status(), param);
  if (Status format = CheckImageFormat(*request); !format.ok()) {
    co_return co_await SendError(w, format, "output_format");
  }
  auto model =
      FindModelOfKind(request->model, &models::ModelInfo::image,
                      "an image generation model (a diffusion model in safetensors)", observer);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  auto relay = EngineJob(r, *model, request->model, request->priority, observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status(), "priority");
  relay->to_engine = [job = request->job](const engines::EngineAdapter& engine) {
    return engine.ImageCall(job);
  };
  relay->from_engine_async = [this, asked = *request, &observer](
                                 const engines::EngineAdapter& engine, int status,
                                 std::string body) {
    return ImagesAnswer(&engine, status, std::move(body), asked, &observer);
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

awaitable<Result<relay::ApiAnswer>> OpenAiApi::ImagesAnswer(const engines::EngineAdapter* engine,
                                                            int status, std::string body,
                                                            ImageRequest request,
                                                            relay::RequestObserver* observer) {
  Result<engines::GeneratedImages> images = engine->ReadImages(status, body);
  if (!images.ok()) co_return images.status();
  observer->OnImages(static_cast<int>(images->b64.size()));
  if (request.output_format != images->output_format) {
    const engines::EngineSet* set = engines_.engines;
    const engines::ImageConverter* converter = set ? set->image_converter() : nullptr;
    if (converter == nullptr) {
      co_return EngineFailed("the image engine made " + images->output_format + ", not " +
                             request.output_format + ", and zest has no converter");
    }
    const int quality = request.output_compression.value_or(kDefaultImageQuality);
    for (std::string& b64 : images->b64) {
      std::optional<std::string> png = Base64Decode(b64);
      if (!png) co_return EngineFailed("the image engine's answer is not base64");
      std::string format = request.output_format;  // named: no temporaries in co_await
      Result<std::string> converted = co_await converter->Convert(std::move(*png), format, quality);
      if (!converted.ok()) co_return converted.status();
      b64 = Base64Encode(*converted);
    }
    images->output_format = request.output_format;
  }
  relay::ApiAnswer answer{200, "application/json", ImagesJson(*images, request.job)};
  co_return answer;
}

}  // namespace zest::api::openai
