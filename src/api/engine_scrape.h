// Engine metrics: each ready engine's own Prometheus metrics (where its
// adapter says it serves them, EngineAdapter::metrics), scraped over its
// socket when zest is scraped, and the families the adapter selects
// re-exported as zest_engine_<name>{model="..."} so one scrape of zest
// covers its engines (which no one else can reach).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>
#include <vector>

#include "engines/engine_adapter.h"
#include "engines/engine_set.h"
#include "scheduler/instance_directory.h"

namespace zest::api {

struct EngineExposition {
  const engines::EngineAdapter* engine;  // whose metrics(): names, prefix
  std::string model;
  std::string text;    // the engine's Prometheus text
  std::string device;  // set for a replica: its series get a device label
};

// The selected families of every engine, renamed and labelled by model,
// each family's HELP/TYPE once. Unknown families and malformed lines are
// skipped. Pure.
std::string ReexportEngineMetrics(const std::vector<EngineExposition>& engines);

// GET /metrics from every ready instance whose engine (in `engine_set`) has
// metrics, each bounded to a second; an engine that does not answer is
// left out of this scrape.
boost::asio::awaitable<std::vector<EngineExposition>> ScrapeEngines(
    scheduler::InstanceDirectory& instances, const engines::EngineSet* engine_set);

}  // namespace zest::api
