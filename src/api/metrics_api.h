// GET /metrics: the Prometheus text exposition of zest's metrics registry,
// followed by the selected metrics of each ready engine (engine_scrape).
#pragma once

#include "engines/engine_set.h"
#include "http/router.h"
#include "metrics/registry.h"
#include "scheduler/instance_directory.h"

namespace zest::api {

// `registry`, `instances` and `engine_set` must outlive the router;
// `instances` may be null (no engine metrics).
void RegisterMetricsRoute(http::Router& router, metrics::Registry& registry,
                          scheduler::InstanceDirectory* instances = nullptr,
                          const engines::EngineSet* engine_set = nullptr);

}  // namespace zest::api
