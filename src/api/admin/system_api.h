// SystemApi: GET /api/v1/system-info: the hardware inventory (discovered once
// at startup), the engines and the devices they see (from AdminApi's cached
// probe), the recipe verdicts, and the sampler's latest utilisation.
#pragma once

#include <nlohmann/json.hpp>

#include "api/admin/admin_api.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"
#include "http/router.h"

namespace zest::api::admin {

class SystemApi {
 public:
  // All references must outlive the router.
  SystemApi(const hardware::Inventory& inventory, const hardware::UtilisationSampler& sampler,
            AdminApi& admin);

  void Register(http::Router& router);
  // The body of GET /api/v1/system-info; without kAdmin, no host paths.
  boost::asio::awaitable<nlohmann::json> InfoJson(http::Access access);

 private:
  boost::asio::awaitable<void> HandleSystemInfo(http::Access access, http::ResponseWriter& writer);

  const hardware::Inventory& inventory_;
  const hardware::UtilisationSampler& sampler_;
  AdminApi& admin_;
};

}  // namespace zest::api::admin
