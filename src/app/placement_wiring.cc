#include "app/placement_wiring.h"

#include <spdlog/spdlog.h>

#include "engines/engine_adapter.h"

namespace zest::app {

std::function<std::vector<placement::PlacementDevice>()> DeviceDiscovery(
    const hardware::Inventory& inventory, std::shared_ptr<const engines::EngineSet> engine_set,
    const config::Settings& settings) {
  const uint64_t limit = settings.memory_limit;
  return [&inventory, engine_set = std::move(engine_set), limit] {
    std::vector<engines::EngineDevice> seen;
    for (const engines::EngineAdapter* engine : engine_set->All()) {
      if (!engine->probes_devices() || !engine->Available().ok()) continue;
      auto info = engine->ProbeDevices();
      if (info.ok()) {
        seen.insert(seen.end(), info->devices.begin(), info->devices.end());
      } else {
        spdlog::warn("{} device probe failed ({}); placing on the CPU only", engine->name(),
                     info.status().message());
      }
    }
    return placement::DevicesFromInventory(inventory, seen, limit);
  };
}

}  // namespace zest::app
