// The JSON of GET /api/v1/system-info, shared by the route and by `zest
// system` when it discovers locally (no server running), so both print the
// same shape.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/result.h"
#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/engine_probe.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"
#include "hardware/verdicts.h"

namespace zest::api::admin {

// What the verdicts need from the engines: llama-server located or not, the
// devices its probe listed (`probed` null: not probed, devices unknown), and
// where FastFlowLM's flm is (an error: not installed).
hardware::EngineReport MakeEngineReport(const Result<engines::EngineLocation>& located,
                                        const Result<engines::EngineInfo>* probed,
                                        const Result<std::filesystem::path>& flm);

// {cpu, memory, gpus, npus, vulkan, engines, recipes, utilisation,
//  kernel_release, notes, discovery}. `discovery` is "server" or "local".
nlohmann::json SystemInfoJson(const hardware::Inventory& inventory,
                              const Result<engines::EngineLocation>& located,
                              const Result<engines::EngineInfo>* probed,
                              const Result<std::filesystem::path>& flm,
                              const hardware::Utilisation& utilisation, const char* discovery,
                              const std::vector<engines::EngineDescription>& more = {});

}  // namespace zest::api::admin
