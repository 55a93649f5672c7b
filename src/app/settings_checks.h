// What zest refuses in its settings at start, before any service exists:
// mistakes the user should hear about at once rather than at the first
// request that meets them. Each is kInvalidArgument (the CLI's exit code 2)
// with the setting named.
#pragma once

#include "config/settings.h"
#include "core/result.h"

namespace zest::app {

// A per-model engine flag ([models."name"] extra_args) the language
// engine's allow-list refuses. The files such flags name are checked again
// at each engine start, when they must exist.
Status CheckEngineFlags(const config::Settings& settings);

// An [aliases] entry with an empty side or a glob as its target.
Status CheckAliases(const config::Settings& settings);
// server.max_body_bytes fits in server.max_body_memory_mb.
Status CheckBodyLimits(const config::Settings& settings);

}  // namespace zest::app
