#include "scheduler/options_reload.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "scheduler/draft_acceptance.h"
#include "scheduler/instance_pool_entry.h"

namespace zest::scheduler {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

awaitable<Result<bool>> OptionsReload::Check(const std::string& model, const EntryList& entries,
                                             const std::optional<config::ModelSettings>& settings,
                                             std::optional<config::ModelSettings>& reload_with) {
  // An explicit load with other options than the model's instances have:
  // reload it, but never under a request. The options given anew may
  // pair a draft again.
  if (settings && std::any_of(entries.begin(), entries.end(),
                              [&](const auto& e) { return e->settings != *settings; })) {
    Status replaced = co_await ReplaceIfIdle(model, entries);
    if (!replaced.ok()) co_return replaced;
    ledger_.ForgetDraftSwitchedOff(model);
    co_return true;
  }
  // A draft switched off reloads the model with the options it had (an
  // explicit load's included), less the draft.
  for (const auto& entry : entries) {
    if (entry->state == PoolEntry::State::kReady && entry->instance->DraftSwitchOff()) {
      reload_with = entry->settings;
    }
  }
  co_return co_await SwitchOffDraft(model, entries);
}

awaitable<Status> OptionsReload::ReplaceIfIdle(const std::string& model, const EntryList& entries) {
  for (const auto& entry : entries) {
    const int in_flight = entry->instance ? entry->instance->in_flight.load() : 0;
    if (entry->state != PoolEntry::State::kReady || in_flight > 0 || entry->draining) {
      const std::string why = entry->state != PoolEntry::State::kReady
                                  ? "it is loading"
                                  : std::to_string(in_flight) + " request(s) in flight";
      co_return Status(ErrorCode::kConflict,
                       "model '" + model + "' is loaded with other options and busy (" + why +
                           "); load it again when it is idle, or unload it first");
    }
  }
  spdlog::info("reloading '{}' with new options", model);
  // Its saved conversations would not match the new context: not kept.
  constexpr StopReason kReload{false, "reload"};
  std::string name = model;  // named: no temporaries in co_await
  co_return co_await pool_.Stop(std::move(name), kReload);
}

awaitable<bool> OptionsReload::SwitchOffDraft(const std::string& model, const EntryList& entries) {
  std::optional<placement::DraftSwitchOff> off;
  bool busy = false;
  for (const auto& entry : entries) {
    if (entry->state != PoolEntry::State::kReady) continue;
    if (std::optional<placement::DraftSwitchOff> verdict = entry->instance->DraftSwitchOff()) {
      off = std::move(verdict);
    }
    busy = busy || entry->instance->in_flight.load() > 0;
  }
  if (!off) co_return false;
  if (busy) {
    // Its requests in flight finish with the draft; new ones wait for the
    // reload (dispatch sends them none: InstancePool::TryReserve).
    asio::steady_timer pause(strand_, std::chrono::milliseconds(20));
    co_await pause.async_wait(asio::as_tuple(use_awaitable));
    co_return true;
  }
  spdlog::warn(
      "'{}': speculative decoding switched off: its draft model '{}' had {:.2f} of {} drafted "
      "tokens accepted (drafting pays from {:.2f}); reloading it without the draft",
      model, off->draft_model, off->acceptance, off->drafted,
      DraftAcceptance::kMinPayingAcceptance);
  ledger_.NoteDraftSwitchedOff(model, *off);
  // Its saved conversations carry the draft's state too: not kept.
  constexpr StopReason kSwitchOff{false, "draft_switched_off"};
  std::string name = model;  // named: no temporaries in co_await
  (void)co_await pool_.Stop(std::move(name), kSwitchOff);
  co_return true;
}

}  // namespace zest::scheduler
