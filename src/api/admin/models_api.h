// ModelsApi: zest's model management routes:
//   DELETE /api/v1/models/{name...} and POST /api/v1/delete {"model"}:
//     stop the model's engines, then delete it (a store model's files, a
//     models-dir file, or only the registration of a `zest add` model);
//   GET /api/v1/show?model=NAME and POST /api/v1/show {"model"}: the GGUF
//     header (every metadata key, big arrays summarised by length), tensor
//     count and zest's summary of the model.
// Handlers parse, call the registry (and the instances), render; nothing else.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>

#include "api/model_removal.h"
#include "core/result.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_directory.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/slot_dirs.h"

namespace zest::api::admin {

class ModelsApi : public ModelRemoval {
 public:
  // Both must outlive the router the routes are added to.
  ModelsApi(models::ModelRegistry& registry, scheduler::InstanceDirectory& instances,
            scheduler::InstanceLifecycle& lifecycle, scheduler::SlotDirs slot_dirs)
      : registry_(registry),
        instances_(instances),
        lifecycle_(lifecycle),
        slot_dirs_(std::move(slot_dirs)) {}

  void Register(http::Router& router);

  // ModelRemoval: stops every engine serving the model's file, then
  // removes it. For every API's delete (Ollama's too).
  boost::asio::awaitable<Result<models::ModelEntry>> Delete(std::string name) override;

 private:
  boost::asio::awaitable<void> SendDeleted(std::string name, http::ResponseWriter& w);
  boost::asio::awaitable<void> SendShow(std::string name, http::ResponseWriter& w);

  models::ModelRegistry& registry_;
  scheduler::InstanceDirectory& instances_;
  scheduler::InstanceLifecycle& lifecycle_;
  const scheduler::SlotDirs slot_dirs_;
};

// Decoded value of `key` in a URL query string ("model=org%2Fm%3AQ8_0").
std::string QueryParam(std::string_view query, std::string_view key);

}  // namespace zest::api::admin
