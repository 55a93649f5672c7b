#include "app/placement_wiring.h"

#include <spdlog/spdlog.h>

#include "engines/engine_probe.h"

namespace zest::app {

std::function<std::vector<placement::PlacementDevice>()> DeviceDiscovery(
    const hardware::Inventory& inventory, Result<engines::EngineLocation> engine,
    const config::Settings& settings) {
  const uint64_t limit = settings.memory_limit;
  return [&inventory, engine = std::move(engine), limit] {
    std::vector<hardware::EngineReport::Device> seen;
    if (engine.ok()) {
      auto info = engines::ProbeEngine(*engine);
      if (info.ok()) {
        for (const auto& d : info->devices) seen.push_back({d.name, d.description});
      } else {
        spdlog::warn("engine device probe failed ({}); placing on the CPU only",
                     info.status().message());
      }
    }
    return placement::DevicesFromInventory(inventory, seen, limit);
  };
}

}  // namespace zest::app
