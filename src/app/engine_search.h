// Where the settings say to look for engines (engine.*, PATH, the engine
// rootfs), for the server and for `zest system` without one.
#pragma once

#include "config/settings.h"
#include "engines/engine_discovery.h"

namespace zest::app {

engines::EngineSearch EngineSearchFor(const config::Settings& settings);

}  // namespace zest::app
