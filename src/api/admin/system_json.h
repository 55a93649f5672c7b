// The JSON of GET /api/v1/system-info, shared by the route and by `zest
// system` when it discovers locally (no server running), so both print the
// same shape.
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "engines/engine_locator.h"
#include "engines/engine_probe.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"
#include "hardware/verdicts.h"

namespace zest::api::admin {

// What the verdicts need from the engine: located or not, and the devices
// its probe listed. `probed` null: not probed (devices unknown).
hardware::EngineReport MakeEngineReport(const Result<engines::EngineLocation>& located,
                                        const Result<engines::EngineInfo>* probed);

// {cpu, memory, gpus, npus, vulkan, engines, recipes, utilisation,
//  kernel_release, notes, discovery}. `discovery` is "server" or "local".
nlohmann::json SystemInfoJson(const hardware::Inventory& inventory,
                              const Result<engines::EngineLocation>& located,
                              const Result<engines::EngineInfo>* probed,
                              const hardware::Utilisation& utilisation, const char* discovery);

}  // namespace zest::api::admin
