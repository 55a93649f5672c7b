#include "http/event_loops.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/strand.hpp>

namespace zest::http {

// One counter per loop, shared with the holds so that a connection that
// outlives the EventLoops (it should not) still decrements memory that lives.
struct EventLoops::Counts {
  explicit Counts(int loops) : open(static_cast<std::size_t>(loops)) {}
  std::vector<std::atomic<int>> open;
};

EventLoops::EventLoops(boost::asio::io_context& main, int loops, Threads threads)
    : main_(main), threads_(threads), counts_(std::make_shared<Counts>(std::max(loops, 1))) {
  // Each extra loop is run by one thread: the hint lets Asio skip the
  // bookkeeping of several threads taking its handlers.
  for (int i = 1; i < loops; ++i) extra_.push_back(std::make_unique<boost::asio::io_context>(1));
}

EventLoops::Placement EventLoops::ForConnection() {
  std::size_t best = 0;
  for (std::size_t i = 1; i < counts_->open.size(); ++i) {
    if (counts_->open[i].load() < counts_->open[best].load()) best = i;
  }
  counts_->open[best].fetch_add(1);
  // The hold is a shared_ptr to the counts whose deleter gives the place back.
  std::shared_ptr<void> hold(counts_.get(),
                             [counts = counts_, best](void*) { counts->open[best].fetch_sub(1); });
  const int chosen = static_cast<int>(best);
  return {chosen, Serial(chosen), std::move(hold)};
}

boost::asio::any_io_executor EventLoops::Serial(int i) {
  if (threads_ == Threads::kOneEach) return loop(i).get_executor();
  return boost::asio::make_strand(loop(i));
}

int EventLoops::open(int i) const { return counts_->open[static_cast<std::size_t>(i)].load(); }

}  // namespace zest::http
