// UpstreamPool: engine connections kept open between requests (HTTP/1.1
// keep-alive over the engine's UNIX socket), so a request to an engine
// does not pay for a new connection: on zest's side socket, connect, the
// peer-credential check and close (7 system calls), on llama-server's an
// accept and a hand-off to one of its HTTP threads; per 1-token request
// (bench/profiles/gateway-1token.md).
//
// An UpstreamRequest that names a pool (SendUpstream, upstream_client.h)
// takes an idle connection to its socket from the pool and gives it back
// once the whole response was read and allowed keep-alive; a connection
// that was cancelled, broke or was not read to its end is closed instead.
// A connection belongs to the event loop (io_context) that made it and is
// only taken by a request on that loop. Idle connections are kept for at
// most `max_idle` (llama-server closes them after its keep-alive timeout,
// 5 s) and `max_idle_per_socket` per engine socket (each holds one of the
// engine's HTTP threads while it waits); one the engine has closed is
// noticed when taken and dropped.
//
// Thread-safe. Must be destroyed before the io_contexts of its connections.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"

namespace zest::http {

class UpstreamPool {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;
  struct Options {
    std::size_t max_idle_per_socket = 4;
    std::chrono::milliseconds max_idle{2000};
  };

  UpstreamPool() : UpstreamPool(Options{}) {}
  explicit UpstreamPool(Options options) : options_(options) {}
  UpstreamPool(const UpstreamPool&) = delete;
  UpstreamPool& operator=(const UpstreamPool&) = delete;

  // The most recently used idle connection to `path` made on `executor`'s
  // io_context that the engine has not closed; none when there is none.
  std::optional<Socket> Take(const std::string& path, const boost::asio::any_io_executor& executor);
  // Keeps `socket`, whose exchange read a whole response that allows
  // keep-alive, for the next request to `path`.
  void Give(const std::string& path, Socket socket);
  // Idle connections held now (expired ones included until the next
  // Take or Give).
  std::size_t idle() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Idle {
    std::string path;
    const void* loop;  // the io_context that serves the socket
    Socket socket;
    Clock::time_point since;
  };
  void DropExpired(Clock::time_point now) REQUIRES(mu_);

  const Options options_;
  mutable Mutex mu_;
  std::vector<Idle> idle_ GUARDED_BY(mu_);  // the most recently given last
};

}  // namespace zest::http
