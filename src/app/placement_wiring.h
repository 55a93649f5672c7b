// Wiring for placement: the pool's device list from the hardware inventory
// and what the engines see (EngineAdapter::ProbeDevices).
#pragma once

#include <functional>
#include <vector>

#include "config/settings.h"
#include "engines/engine_set.h"
#include "hardware/inventory.h"
#include "placement/devices.h"

namespace zest::app {

// A function for PoolOptions::discover_devices: probes the set's engines
// that see devices (blocking, about a second) and combines their devices
// with `inventory` (which must outlive the function). Without such an
// engine or when the probe fails: the CPU only.
std::function<std::vector<placement::PlacementDevice>()> DeviceDiscovery(
    const hardware::Inventory& inventory, std::shared_ptr<const engines::EngineSet> engines,
    const config::Settings& settings);

}  // namespace zest::app
