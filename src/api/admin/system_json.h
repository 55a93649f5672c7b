// The JSON of GET /api/v1/system-info, shared by the route and by `zest
// system` when it discovers locally (no server running), so both print the
// same shape.
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "engines/engine_adapter.h"
#include "engines/engine_probe.h"
#include "engines/engine_set.h"
#include "engines/recipe_verdicts.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"

namespace zest::api::admin {

// One engine as `zest system` and `zest engines` show it.
nlohmann::json EngineJson(const engines::EngineDescription& description);

// `engine`'s description, with `probed` (the device probe's answer, null
// when not run) where the engine is the one probed for devices.
// Removes what names this host's files from EngineJson() objects (`binary`,
// `rootfs`, `sandbox`, and `error`, whose messages quote paths) for a key
// that is not admin: an inference key needs which engines serve what, not
// where they live on disk (issue 52, 16).
void StripHostPaths(nlohmann::json& engines);

engines::EngineDescription DescribeEngine(const engines::EngineAdapter& engine,
                                          const Result<engines::EngineInfo>* probed);

// {cpu, memory, gpus, npus, vulkan, engines, recipes, utilisation,
//  kernel_release, notes, discovery}. `discovery` is "server" or "local".
nlohmann::json SystemInfoJson(const hardware::Inventory& inventory,
                              const engines::EngineSet& engines,
                              const Result<engines::EngineInfo>* probed,
                              const hardware::Utilisation& utilisation, const char* discovery);

}  // namespace zest::api::admin
