#include "scheduler/load_retry.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "scheduler/instance_pool_entry.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;

// Loads killed from outside while they load (the OOM killer, an operator,
// a chaos test) are not the model's fault: a request waiting for one starts
// another, at least kLoadAttempts times and for up to kKilledLoadPatience
// (engines killed every second or two, while loads take seconds, would
// otherwise fail every request waiting on a load). A model that is killed on
// every load (the OOM killer, each time) still fails its requests after that.
constexpr int kLoadAttempts = 3;
constexpr std::chrono::seconds kKilledLoadPatience{30};

}  // namespace

EntryScan ScanEntries(const PoolLedger::EntryList& entries) {
  using State = PoolEntry::State;
  EntryScan scan;
  for (const auto& entry : entries) {
    if (entry->state == State::kLoading) {
      if (!scan.loading || (scan.loading->replica && !entry->replica)) scan.loading = entry;
    } else if (entry->state != State::kReady) {
      continue;
    } else if (!entry->instance->Alive()) {
      scan.dead = entry;
    } else if (entry->draining) {
      scan.draining = true;
    } else {
      scan.ready = entry->instance;
      return scan;
    }
  }
  return scan;
}

asio::awaitable<void> WaitOutDraining(asio::strand<asio::io_context::executor_type>& strand,
                                      const std::string& model, LoadRetry& retry) {
  // Its memory is promised to another model: wait until it is gone.
  if (!std::exchange(retry.said_draining, true)) {
    spdlog::debug("a request for '{}' waits: its engine is draining", model);
  }
  asio::steady_timer pause(strand, std::chrono::milliseconds(50));
  co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
}

bool LoadAgainAfter(const std::string& model, const PoolEntry& failed, LoadRetry& retry) {
  // A replica that failed leaves the model as it was; look again. So does
  // an engine killed from outside while it loaded (not its fault), for a
  // while (kKilledLoadPatience).
  if (failed.replica) return true;
  if (!failed.killed_from_outside) return false;
  if (++retry.killed_loads >= kLoadAttempts &&
      std::chrono::steady_clock::now() - retry.started >= kKilledLoadPatience) {
    return false;
  }
  spdlog::info("'{}' was killed while it loaded ({} time(s) for this request); loading it again",
               model, retry.killed_loads);
  return true;
}

}  // namespace zest::scheduler
