// ModelRemoval: a model deleted for any API's delete route (zest's own,
// Ollama's /api/delete): its instances stopped, its saved conversations
// and its files removed. admin::ModelsApi implements it; Ollama's routes
// see only this.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>

#include "core/result.h"
#include "models/model_registry.h"

namespace zest::api {

class ModelRemoval {
 public:
  virtual ~ModelRemoval() = default;
  // The entry that was removed; kNotFound for a name no model has.
  virtual boost::asio::awaitable<Result<models::ModelEntry>> Delete(std::string name) = 0;
};

}  // namespace zest::api
