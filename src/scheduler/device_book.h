// DeviceBook: the devices placement plans against (placement/devices.h):
// this machine's, found once at the first load (finding them may probe the
// engine, so it runs off the I/O threads), and the ggml RPC workers',
// asked again whenever a load needs them (a worker that went away is
// planned without, one that came back with). Without a way to find them:
// one CPU with no memory limit, so only a model's options shape its plan.
//
// Ensure and RefreshRemote run on the strand given (the pool's); Snapshot
// from any thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "placement/devices.h"

namespace zest::scheduler {

struct DeviceSources {
  // This machine's devices and the memory zest may use on each; unset: one
  // CPU with no memory limit.
  std::function<std::vector<placement::PlacementDevice>()> discover;
  // The RPC workers' devices, given the endpoints running engines use
  // (which it must not probe: ggml-rpc-server serves one client at a time);
  // unset: no workers.
  std::function<std::vector<placement::PlacementDevice>(const std::vector<std::string>& in_use)>
      remote;
};

class DeviceBook {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
  // `strand` and `blocking` (where discovery runs) must outlive it.
  DeviceBook(Strand& strand, boost::asio::thread_pool& blocking, DeviceSources sources);

  // Finds the devices the first time; later calls wait for that or return
  // at once. Strand only.
  boost::asio::awaitable<void> Ensure();
  // Replaces the workers' devices with what the source says now. Strand
  // only, after Ensure.
  boost::asio::awaitable<void> RefreshRemote(std::vector<std::string> in_use);
  // Whether there are RPC workers to ask.
  bool has_remote() const { return static_cast<bool>(sources_.remote); }

  // The devices as last found; nullopt until Ensure has found them.
  std::optional<std::vector<placement::PlacementDevice>> Snapshot() const;

 private:
  boost::asio::awaitable<std::vector<placement::PlacementDevice>> DiscoverBlocking();
  boost::asio::awaitable<std::vector<placement::PlacementDevice>> RemoteBlocking(
      std::vector<std::string> in_use);

  boost::asio::thread_pool& blocking_;
  const DeviceSources sources_;
  bool discovering_ = false;         // strand only
  boost::asio::steady_timer found_;  // cancelled once the devices are found
  mutable Mutex mu_;
  std::optional<std::vector<placement::PlacementDevice>> devices_ GUARDED_BY(mu_);
};

}  // namespace zest::scheduler
