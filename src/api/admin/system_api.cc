#include "api/admin/system_api.h"

#include "api/admin/system_json.h"

namespace zest::api::admin {

SystemApi::SystemApi(const hardware::Inventory& inventory,
                     const hardware::UtilisationSampler& sampler, AdminApi& admin,
                     const Result<engines::EngineLocation>& engine,
                     const Result<std::filesystem::path>& flm,
                     std::vector<engines::EngineDescription> more)
    : inventory_(inventory),
      sampler_(sampler),
      admin_(admin),
      engine_(engine),
      flm_(flm),
      more_(std::move(more)) {}

boost::asio::awaitable<void> SystemApi::HandleSystemInfo(http::ResponseWriter& writer) {
  // The probe runs once (off the I/O threads) and is cached by AdminApi.
  Result<engines::EngineInfo> probed = co_await admin_.EngineInfo();
  const Result<engines::EngineInfo>* probe = engine_.ok() ? &probed : nullptr;
  std::string body =
      SystemInfoJson(inventory_, engine_, probe, flm_, sampler_.Snapshot(), "server", more_).dump();
  co_await writer.Send(200, "application/json", body);
}

void SystemApi::Register(http::Router& router) {
  router.Add("GET", "/api/v1/system-info",
             [this](http::Request&, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
               co_await HandleSystemInfo(w);
             });
}

}  // namespace zest::api::admin
