// Extra engine arguments a user may pass through (config `extra_args`),
// checked against the flags zest itself owns: where the engine listens and
// who may reach it (--host, --port, --api-key...), what files it writes
// (--slot-save-path, --log-file), and the placement zest computes (-ngl,
// --device, -c...; those are set through their own per-model options so the
// memory ledger knows them). Pure.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace zest::placement {

// kInvalidArgument naming the first reserved flag (either spelling, also as
// "--flag=value") and the option to use instead where there is one.
Status ValidateExtraArgs(const std::vector<std::string>& args);

}  // namespace zest::placement
