// EngineStarter: the start of an instance's life, apart from the pool's
// bookkeeping. From a model and its admitted plan it picks the engine
// (engines/engine_set.h), builds the engine-neutral launch spec (model
// files, socket, slots, threads, placement, user flags), checks the model
// files, starts the process through the launcher (engines/launcher.h) with
// its own socket directory, environment and log file, and then waits for
// the engine to answer its ready path, failing fast with the engine's own
// words when it exits. InstancePool (instance_pool.h) decides when, where
// and with how much memory; this decides nothing.
//
// Thread-safe: it holds only immutable options and the launcher (itself
// thread-safe).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_set.h"
#include "engines/launcher.h"
#include "models/model_registry.h"
#include "placement/engine_plan.h"
#include "scheduler/instance.h"

namespace zest::scheduler {

struct StarterOptions {
  std::shared_ptr<const engines::EngineSet> engines;  // null: every start fails
  std::shared_ptr<engines::Launcher> launcher;        // null: real processes
  std::filesystem::path log_dir;                      // MODEL.log, a replica's MODEL@DEVICE.log
  std::filesystem::path pid_dir;                      // engines/pid_file.h; empty = none
  std::chrono::seconds ready_timeout{120};
  // Files that engine flags name must lie below one of these.
  std::vector<std::filesystem::path> model_roots;
  // Hidden from engines (zest's home).
  std::vector<std::filesystem::path> hidden_dirs;
  // Whether zest asks every request for an API key now; unset: it does
  // not. An engine with RPC workers starts only when it does.
  std::function<bool()> keys_required;
};

// What one instance is started with, beside the model and its plan.
struct StartRequest {
  std::filesystem::path socket;    // in a directory of its own, made here
  std::filesystem::path slot_dir;  // --slot-save-path; empty = none
  bool replica = false;            // its log file is named after its device
};

class EngineStarter {
 public:
  explicit EngineStarter(StarterOptions options);

  // The engine started for `model` as `plan` says: not yet ready. Errors:
  // kUnavailable when no engine serves that kind of model; kInvalidArgument
  // for a flag the engine does not allow; kPermissionDenied for an unsafe
  // model file; the launcher's error when the process cannot start.
  Result<std::shared_ptr<Instance>> Start(const models::ModelEntry& model,
                                          const placement::EnginePlan& plan,
                                          const StartRequest& request) const;

  // Polls the instance's ready path on its socket every ~20 ms until it
  // answers 200. kEngineFailed (with the lines of its output that explain
  // why) as soon as the process exits; kTimeout after the ready timeout.
  boost::asio::awaitable<Status> WaitReady(boost::asio::any_io_executor executor,
                                           Instance& instance) const;

 private:
  engines::LaunchSpec SpecFor(const models::ModelEntry& model, const placement::EnginePlan& plan,
                              const StartRequest& request) const;
  Result<std::unique_ptr<engines::EngineProcess>> Spawn(const engines::EngineAdapter& engine,
                                                        const models::ModelEntry& model,
                                                        const engines::LaunchSpec& spec,
                                                        const placement::EnginePlan& plan,
                                                        bool replica) const;

  const StarterOptions options_;
  const std::shared_ptr<engines::Launcher> launcher_;
};

// The files the engine reads for `model`: the model, the other shards of a
// split model, the vision projector.
std::vector<std::filesystem::path> ModelFiles(const models::ModelEntry& model);

// The lines of an engine's output that explain a failure: those that
// mention an error, else the last few.
std::string FailureReason(const engines::EngineProcess& process);

// A model name as a file name (engine logs, slot directories), one to one:
// letters, digits, '-' and (but first) '.' stay, every other byte becomes
// '_' and its two hex digits ("a/b" "a_2fb", "a_b" "a_5fb"), so no two
// names share a file and none is "." or "..".
std::string SafeFileName(std::string name);

// The name before SafeFileName was one to one ('/' and ':' became '_'):
// where slot directories made then are found (SlotDirs::Saved).
std::string OldSafeFileName(std::string name);

// The engine flags for a plan.
engines::EnginePlacement EnginePlacementFor(const placement::EnginePlan& plan);

}  // namespace zest::scheduler
