#include "api/admin/system_api.h"

#include "api/admin/system_json.h"

namespace zest::api::admin {

SystemApi::SystemApi(const hardware::Inventory& inventory,
                     const hardware::UtilisationSampler& sampler, AdminApi& admin)
    : inventory_(inventory), sampler_(sampler), admin_(admin) {}

boost::asio::awaitable<nlohmann::json> SystemApi::InfoJson(http::Access access) {
  // The probe runs once (off the I/O threads) and is cached by AdminApi.
  Result<engines::EngineInfo> probed = co_await admin_.DeviceProbe();
  nlohmann::json info =
      SystemInfoJson(inventory_, admin_.engines(), &probed, sampler_.Snapshot(), "server");
  info["rpc_workers"] = admin_.RpcWorkersJson();
  if (access != http::Access::kAdmin) StripHostPaths(info["engines"]);
  co_return info;
}

boost::asio::awaitable<void> SystemApi::HandleSystemInfo(http::Access access,
                                                         http::ResponseWriter& writer) {
  nlohmann::json info = co_await InfoJson(access);
  std::string body = info.dump();
  co_await writer.Send(200, "application/json", std::move(body));
}

void SystemApi::Register(http::Router& router) {
  router.Add("GET", "/api/v1/system-info",
             [this](http::Request& r, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
               co_await HandleSystemInfo(r.access, w);
             });
}

}  // namespace zest::api::admin
