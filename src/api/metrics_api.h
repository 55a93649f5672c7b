// GET /metrics: the Prometheus text exposition of zest's metrics registry.
#pragma once

#include "http/router.h"
#include "metrics/registry.h"

namespace zest::api {

// `registry` must outlive the router.
void RegisterMetricsRoute(http::Router& router, metrics::Registry& registry);

}  // namespace zest::api
