// GET /metrics: the Prometheus text exposition of zest's metrics registry,
// followed by the selected metrics of each ready engine (engine_scrape).
#pragma once

#include "http/router.h"
#include "metrics/registry.h"
#include "scheduler/instance_pool.h"

namespace zest::api {

// `registry` and `pool` must outlive the router; `pool` may be null (no
// engine metrics).
void RegisterMetricsRoute(http::Router& router, metrics::Registry& registry,
                          scheduler::InstancePool* pool = nullptr);

}  // namespace zest::api
