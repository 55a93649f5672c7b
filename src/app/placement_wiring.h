// Wiring for placement: the pool's device list from the hardware inventory
// and what the engine sees (`llama-server --list-devices`).
#pragma once

#include <functional>
#include <vector>

#include "config/settings.h"
#include "engines/engine_locator.h"
#include "hardware/inventory.h"
#include "placement/devices.h"

namespace zest::app {

// A function for PoolOptions::discover_devices: probes the engine (blocking,
// about a second) and combines its devices with `inventory` (which must
// outlive the function). Without an engine or when the probe fails: the CPU
// only.
std::function<std::vector<placement::PlacementDevice>()> DeviceDiscovery(
    const hardware::Inventory& inventory, Result<engines::EngineLocation> engine,
    const config::Settings& settings);

}  // namespace zest::app
