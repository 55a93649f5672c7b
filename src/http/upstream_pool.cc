#include "http/upstream_pool.h"

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>
#include <cerrno>

namespace zest::http {
namespace {

const void* LoopOf(const boost::asio::any_io_executor& executor) {
  return &boost::asio::query(executor, boost::asio::execution::context);
}

// Whether the engine still holds its end: an idle connection has nothing to
// read, so anything but "would block" (its close, an error, stray bytes)
// means it cannot carry a request.
bool StillOpen(UpstreamPool::Socket& socket) {
  char byte = 0;
  const ssize_t n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

}  // namespace

std::optional<UpstreamPool::Socket> UpstreamPool::Take(
    const std::string& path, const boost::asio::any_io_executor& executor) {
  const void* loop = LoopOf(executor);
  MutexLock lock(mu_);
  DropExpired(Clock::now());
  for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
    if (it->path != path || it->loop != loop) continue;
    Socket socket = std::move(it->socket);
    idle_.erase(std::next(it).base());
    if (StillOpen(socket)) return socket;
    return std::nullopt;  // the engine closed it: the others are older still
  }
  return std::nullopt;
}

void UpstreamPool::Give(const std::string& path, Socket socket) {
  if (options_.max_idle_per_socket == 0) return;  // closed with `socket`
  const void* loop = LoopOf(socket.get_executor());
  const Clock::time_point now = Clock::now();
  MutexLock lock(mu_);
  DropExpired(now);
  const auto same = [&path](const Idle& idle) { return idle.path == path; };
  if (static_cast<std::size_t>(std::count_if(idle_.begin(), idle_.end(), same)) >=
      options_.max_idle_per_socket) {
    idle_.erase(std::find_if(idle_.begin(), idle_.end(), same));  // the oldest goes
  }
  idle_.push_back({path, loop, std::move(socket), now});
}

std::size_t UpstreamPool::idle() const {
  MutexLock lock(mu_);
  return idle_.size();
}

void UpstreamPool::DropExpired(Clock::time_point now) {
  std::erase_if(idle_, [&](const Idle& idle) { return now - idle.since > options_.max_idle; });
}

}  // namespace zest::http
