// RunServer: builds zest's object graph (registry, engine pool, APIs, HTTP
// server) from the settings, serves until SIGINT/SIGTERM, then stops every
// engine. The only place that constructs services.
#pragma once

#include "config/settings.h"

namespace zest::app {

// Returns the process exit code.
int RunServer(const config::LoadedSettings& loaded);

}  // namespace zest::app
