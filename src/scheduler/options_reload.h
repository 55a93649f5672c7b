// OptionsReload: when a model's instances are loaded again with other
// options (InstancePool, instance_pool.h). An explicit load that asks for
// options they do not have replaces them once every one is idle (never
// under a request); an `auto` draft that does not pay
// (Instance::DraftSwitchOff) is switched off, and the model reloaded
// without it once its requests in flight are done, its later loads planned
// without it (PoolLedger::NoteDraftSwitchedOff).
//
// Internal to scheduler/. The pool's strand only.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/result.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/pool_ledger.h"

namespace zest::scheduler {

class OptionsReload {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
  using EntryList = PoolLedger::EntryList;

  // Stops go through `pool`; the draft's verdict into `ledger`. All must
  // outlive this.
  OptionsReload(Strand& strand, InstanceLifecycle& pool, PoolLedger& ledger)
      : strand_(strand), pool_(pool), ledger_(ledger) {}

  // Reloads `model` (its `entries`) when an explicit load asks for other
  // options than its instances have (`settings`), or when its draft does
  // not pay (setting `reload_with` to the options it had); true when the
  // caller must look at the entries again. kConflict when the instances
  // with other options are busy.
  boost::asio::awaitable<Result<bool>> Check(const std::string& model, const EntryList& entries,
                                             const std::optional<config::ModelSettings>& settings,
                                             std::optional<config::ModelSettings>& reload_with);

 private:
  // kConflict unless every instance of `model` (loaded with other options
  // than asked) is idle; then they are stopped.
  boost::asio::awaitable<Status> ReplaceIfIdle(const std::string& model, const EntryList& entries);
  // When an instance of `model` says its `auto` draft does not pay: once
  // all are idle, notes it (later loads go without the draft), logs it and
  // stops them; true when it did, or when the model must wait for its
  // requests in flight.
  boost::asio::awaitable<bool> SwitchOffDraft(const std::string& model, const EntryList& entries);

  Strand& strand_;
  InstanceLifecycle& pool_;
  PoolLedger& ledger_;
};

}  // namespace zest::scheduler
