// What the settings say each service is built with: ServerApp reads them
// here, one function per service, so the translation from configuration to
// options is in one place and tested apart from the server. Pure but for
// PoolOptionsFor, which makes the prefill hand-over directory when asked.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "api/chat_route.h"
#include "app/rpc_workers.h"
#include "config/settings.h"
#include "engines/engine_set.h"
#include "hardware/inventory.h"
#include "http/authenticator.h"
#include "metrics/registry.h"
#include "models/downloader.h"
#include "models/model_aliases.h"
#include "models/model_registry.h"
#include "scheduler/admission.h"
#include "scheduler/autoscaler.h"
#include "scheduler/pool_options.h"
#include "scheduler/session_tier.h"

namespace zest::app {

// The engine pool's: the engine runs the normal slots and the ones reserved
// for high priority; engines see the model roots and never zest's home;
// slots are saved only when save_slots; with split_prefill_tokens a
// hand-over directory below `run_dir` (created, 0700); devices from
// `inventory` and what the engines see, and the RPC workers' when there
// are any. `inventory` and `rpc_workers` must outlive the pool.
scheduler::PoolOptions PoolOptionsFor(const config::Settings& settings,
                                      const std::filesystem::path& run_dir,
                                      const hardware::Inventory& inventory,
                                      std::shared_ptr<const engines::EngineSet> engine_set,
                                      RpcWorkers& rpc_workers);

// `options` with the registry as its model lookup (draft models for
// speculative decoding, scheduler/speculative_choice.h). `registry` must
// outlive the pool.
scheduler::PoolOptions WithModelLookup(scheduler::PoolOptions options,
                                       models::ModelRegistry& registry);

// `options` whose engines know whether zest asks for API keys now (`auth`;
// RPC workers need them).
scheduler::PoolOptions WithKeysRequired(scheduler::PoolOptions options,
                                        std::shared_ptr<const http::Authenticator> auth);

// `options` whose stops save their conversations with `tier`
// (scheduler/session_tier.h), which must outlive the pool.
scheduler::PoolOptions WithSessionTier(scheduler::PoolOptions options,
                                       scheduler::SessionTier& tier);

// The session tier's: on only where slots are saved (save_slots) and its
// disk budget is not 0.
scheduler::SessionTierOptions SessionTierOptionsFor(const config::Settings& settings);

scheduler::AdmissionLimits AdmissionLimitsFor(const config::Settings& settings);

// Replicas only when autoscale is on and more than one instance is allowed.
scheduler::AutoscaleParams AutoscaleParamsFor(const config::Settings& settings);

// What every API's chat route shares. The longest keep_alive a request may
// ask for is max_keep_alive, else keep_alive (both validated at load).
api::ChatRouteOptions ChatRouteOptionsFor(const config::Settings& settings);

// `zest pull`'s tuning; bytes received are counted in `metrics` as
// zest_download_bytes_total, which must outlive the downloads.
models::DownloadOptions PullOptionsFor(const config::Settings& settings,
                                       metrics::Registry& metrics);

// [aliases], in the registry's terms.
std::vector<models::ModelAlias> AliasesFor(const config::Settings& settings);

// cluster.manifest, relative to $ZEST_HOME when not absolute; empty when
// there is none.
std::filesystem::path ManifestPathFor(const config::Settings& settings);

}  // namespace zest::app
