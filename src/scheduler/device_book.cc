#include "scheduler/device_book.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <limits>

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

std::vector<placement::PlacementDevice> UnlimitedCpu() {
  placement::PlacementDevice cpu;
  cpu.name = placement::kCpuDevice;
  cpu.description = "CPU (no memory limit)";
  cpu.total_bytes = cpu.free_bytes = std::numeric_limits<uint64_t>::max() / 4;
  return {cpu};
}

}  // namespace

DeviceBook::DeviceBook(Strand& strand, asio::thread_pool& blocking, DeviceSources sources)
    : blocking_(blocking), sources_(std::move(sources)), found_(strand) {
  found_.expires_at(asio::steady_timer::time_point::max());
}

awaitable<void> DeviceBook::Ensure() {
  if (Snapshot()) co_return;
  if (discovering_) {  // started by the constructor (or another load): wait for it
    co_await found_.async_wait(asio::as_tuple(use_awaitable));
    co_return;
  }
  discovering_ = true;
  std::vector<placement::PlacementDevice> found;
  if (sources_.discover) {
    found = co_await asio::co_spawn(blocking_, DiscoverBlocking(), use_awaitable);
  } else {
    found = UnlimitedCpu();
  }
  for (const auto& d : found) {
    spdlog::info("placement device {}: {}, {} free of {}", d.name, d.description,
                 placement::FormatBytes(d.free_bytes), placement::FormatBytes(d.total_bytes));
  }
  {
    MutexLock lock(mu_);
    devices_ = std::move(found);
  }
  found_.cancel();
}

awaitable<std::vector<placement::PlacementDevice>> DeviceBook::DiscoverBlocking() {
  std::vector<placement::PlacementDevice> devices = sources_.discover();
  if (sources_.remote) {
    std::vector<placement::PlacementDevice> remote = sources_.remote({});
    devices.insert(devices.end(), remote.begin(), remote.end());
  }
  co_return devices;
}

awaitable<void> DeviceBook::RefreshRemote(std::vector<std::string> in_use) {
  if (!sources_.remote) co_return;
  std::vector<placement::PlacementDevice> remote =
      co_await asio::co_spawn(blocking_, RemoteBlocking(std::move(in_use)), use_awaitable);
  MutexLock lock(mu_);
  if (devices_) {
    std::erase_if(*devices_, [](const placement::PlacementDevice& d) { return d.remote(); });
    devices_->insert(devices_->end(), remote.begin(), remote.end());
  }
}

awaitable<std::vector<placement::PlacementDevice>> DeviceBook::RemoteBlocking(
    std::vector<std::string> in_use) {
  co_return sources_.remote(in_use);
}

std::optional<std::vector<placement::PlacementDevice>> DeviceBook::Snapshot() const {
  MutexLock lock(mu_);
  return devices_;
}

}  // namespace zest::scheduler
