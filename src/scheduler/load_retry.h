// What one request does while its model has no ready instance
// (InstancePool::AcquireOnStrand): it looks at the model's entries, joins
// the load under way or starts one, waits while an instance drains (its
// memory is promised to another model), and loads again when a load was
// killed from outside (not the model's fault) for a while.
//
// Internal to scheduler/. The pool's strand only.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "scheduler/instance.h"
#include "scheduler/pool_ledger.h"

namespace zest::scheduler {

// What a look at a model's entries found: a ready instance, else the load
// to join (its first instance's before a replica's), a dead one, or that
// one is draining.
struct EntryScan {
  std::shared_ptr<Instance> ready;
  std::shared_ptr<PoolEntry> loading, dead;
  bool draining = false;
};
EntryScan ScanEntries(const PoolLedger::EntryList& entries);

// One request's loads so far.
struct LoadRetry {
  std::chrono::steady_clock::time_point started;
  int killed_loads = 0;
  bool said_draining = false;
};

// A pause while an instance of `model` drains (logged once per request).
boost::asio::awaitable<void> WaitOutDraining(
    boost::asio::strand<boost::asio::io_context::executor_type>& strand, const std::string& model,
    LoadRetry& retry);

// Whether a request whose load `failed` loads again (a replica's failure,
// or a kill from outside while within the patience), not its error.
bool LoadAgainAfter(const std::string& model, const PoolEntry& failed, LoadRetry& retry);

}  // namespace zest::scheduler
