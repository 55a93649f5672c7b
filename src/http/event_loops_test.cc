#include "http/event_loops.h"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <optional>

namespace zest::http {
namespace {

TEST(EventLoopsTest, LoopZeroIsTheMainContext) {
  boost::asio::io_context main;
  EventLoops loops(main, 3);
  EXPECT_EQ(loops.size(), 3);
  EXPECT_EQ(&loops.loop(0), &main);
  EXPECT_NE(&loops.loop(1), &main);
  EXPECT_NE(&loops.loop(1), &loops.loop(2));
  EventLoops one(main, 0);  // at least one loop: the main one
  EXPECT_EQ(one.size(), 1);
}

TEST(EventLoopsTest, ConnectionsGoWhereFewestAreOpenLowestFirst) {
  boost::asio::io_context main;
  EventLoops loops(main, 2);
  EventLoops::Placement first = loops.ForConnection();
  EXPECT_EQ(first.loop, 0);  // a lone client shares the services' loop
  EventLoops::Placement second = loops.ForConnection();
  EXPECT_EQ(second.loop, 1);
  std::optional<EventLoops::Placement> third = loops.ForConnection();
  EXPECT_EQ(third->loop, 0);
  EXPECT_EQ(loops.open(0), 2);
  EXPECT_EQ(loops.open(1), 1);
  // A connection that ends gives its place back.
  first.hold.reset();
  third.reset();
  EXPECT_EQ(loops.open(0), 0);
  EXPECT_EQ(loops.ForConnection().loop, 0);  // released at once: 0 and 1 open
  EXPECT_EQ(loops.open(0), 0);
}

TEST(EventLoopsTest, ThePlacementsExecutorRunsOnItsLoop) {
  boost::asio::io_context main;
  EventLoops loops(main, 2);
  EventLoops::Placement a = loops.ForConnection();
  EventLoops::Placement b = loops.ForConnection();
  int ran_on_main = 0;
  int ran_on_other = 0;
  boost::asio::post(a.executor, [&] { ++ran_on_main; });
  boost::asio::post(b.executor, [&] { ++ran_on_other; });
  loops.loop(0).run();
  EXPECT_EQ(ran_on_main, 1);
  EXPECT_EQ(ran_on_other, 0);  // waits for its own loop
  loops.loop(1).run();
  EXPECT_EQ(ran_on_other, 1);
}

// A loop one thread runs needs no strand; a context several threads run
// gives each connection one.
TEST(EventLoopsTest, AStrandOnlyWhereThreadsShareALoop) {
  using IoExecutor = boost::asio::io_context::executor_type;
  boost::asio::io_context main;
  EventLoops own(main, 2);
  EXPECT_NE(own.ForConnection().executor.target<IoExecutor>(), nullptr);
  EventLoops shared(main, 1, EventLoops::Threads::kShared);
  EXPECT_NE(shared.ForConnection().executor.target<boost::asio::strand<IoExecutor>>(), nullptr);
}

}  // namespace
}  // namespace zest::http
