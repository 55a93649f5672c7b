// EventLoops: the gateway's event loops, one io_context per I/O thread, and
// which of them a new connection lives on.
//
// Why not one io_context run by every I/O thread: then each completion on a
// connection (a socket read, a timer, a resumed coroutine) may go to any of
// the threads, and Asio wakes an idle one for it. A 1-token chat request
// cost about 23 futex calls, 13 epoll_ctl calls and 9 involuntary context
// switches of zest's threads that way (bench/profiles/gateway-1token.md),
// on cores the engine needs for the answer. With a loop per thread, a
// connection's coroutine, its socket and its engine socket are served by
// one thread, and nothing wakes another thread but the work that lives
// there.
//
// Loop 0 is the caller's `main` context: the services (instance pool,
// admission, timers, signals, acceptors) run on it. A new connection goes
// to the loop with the fewest open connections, the lowest on ties, so a
// lone client (one kept-alive connection, or one connection at a time)
// shares loop 0 with the services its requests call. The cost of the
// design: a handler that blocks its thread (a large body parsed, a
// directory scanned) delays the other connections of its loop, where one
// shared context would have let another thread take them.
//
// Owns the extra contexts, not the threads: the caller runs loop(i) on a
// thread of its own for each i, one thread each (app/server_app.cc keeps
// those threads until every engine is stopped). So a connection's handlers
// never run concurrently without a strand, whose every hand-off was a trip
// through the loop (15 strand posts per 1-token request); with
// Threads::kShared (a context that several threads run: tests, and
// Server's single-context constructor) each connection gets a strand.
// ForConnection is thread-safe.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <vector>

namespace zest::http {

class EventLoops {
 public:
  // How many threads run each loop.
  enum class Threads { kOneEach, kShared };

  // `loops` (at least 1) loops, loop 0 being `main`, which must outlive this.
  EventLoops(boost::asio::io_context& main, int loops, Threads threads = Threads::kOneEach);
  EventLoops(const EventLoops&) = delete;
  EventLoops& operator=(const EventLoops&) = delete;

  int size() const { return static_cast<int>(extra_.size()) + 1; }
  boost::asio::io_context& loop(int i) { return i == 0 ? main_ : *extra_[i - 1]; }

  // An executor of loop `i` whose handlers never run concurrently: the
  // loop's own (kOneEach) or a fresh strand on it (kShared).
  boost::asio::any_io_executor Serial(int i);

  // Where a new connection lives: Serial() of the loop with the fewest open
  // connections, and a hold that counts it there until it is destroyed
  // (give it to the connection).
  struct Placement {
    int loop = 0;
    boost::asio::any_io_executor executor;  // Serial(loop)
    std::shared_ptr<void> hold;
  };
  Placement ForConnection();

  // Open connections on loop `i` (for tests and logs).
  int open(int i) const;

 private:
  struct Counts;
  boost::asio::io_context& main_;
  const Threads threads_;
  std::vector<std::unique_ptr<boost::asio::io_context>> extra_;
  std::shared_ptr<Counts> counts_;
};

}  // namespace zest::http
