// InstanceDispatch: what the request path asks of the engine instances: a
// slot on the instance of a model expected to finish the request first
// (loading the first instance when there is none), a slot on another one
// for a prefill, and word that one could not be reached. Not how they are
// listed or stopped (instance_directory.h, instance_lifecycle.h).
// InstancePool implements it. Any thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <string>

#include "core/result.h"
#include "models/model_registry.h"
#include "scheduler/instance.h"

namespace zest::scheduler {

class InstanceDispatch {
 public:
  virtual ~InstanceDispatch() = default;

  // For one request (which holds an admission slot): a slot on the model's
  // instance with the least expected completion time (dispatch.h), loading
  // the first instance when needed; `urgent` (high priority) may drain a
  // busy instance of another model for the memory. When every instance is
  // full (their number just shrank) it waits for a slot to free.
  // `session` (api/session_key.h; "" = none): the replica that served it
  // last, while that one has a free slot (session_affinity.h).
  virtual boost::asio::awaitable<Result<InstanceLease>> Dispatch(models::ModelEntry model,
                                                                 bool urgent,
                                                                 std::string session) = 0;

  // A free slot on a ready instance of `model` other than `decode`, on
  // another device, with a slot directory (relay/prefill_handoff.h); an empty
  // lease when there is none.
  virtual InstanceLease TryReserveOther(const std::string& model, const Instance& decode) = 0;

  // A request could not reach `instance`: if its process is gone, it is
  // forgotten, so the next request starts a fresh one.
  virtual boost::asio::awaitable<void> ReportBroken(std::shared_ptr<Instance> instance) = 0;

  // A turn of `session` ("" = none) on `instance` is over and its slot is
  // free: the engine's slot now holds `tokens` (its prompt and answer).
  // What the ledger holds for the engine's prompt cache follows
  // (placement/prompt_cache.h), and under memory pressure the session tier
  // writes the conversation behind (session_tier.h). Returns at once.
  virtual void TurnEnded(const std::shared_ptr<Instance>& instance, const std::string& session,
                         uint64_t tokens) = 0;
};

}  // namespace zest::scheduler
