// Readiness (readiness.h): its states, draining as the last one, and GET
// /ready as a load balancer sees it, through zest's real HTTP server.
#include "app/readiness.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

#include "http/server.h"

namespace zest::app {
namespace {

namespace asio = boost::asio;

TEST(Readiness, StartsStartingAndDrainingIsFinal) {
  Readiness readiness;
  EXPECT_EQ(readiness.state(), Readiness::State::kStarting);
  readiness.Set(Readiness::State::kNotReady, "model m is missing");
  EXPECT_EQ(readiness.state(), Readiness::State::kNotReady);
  readiness.Set(Readiness::State::kReady);
  EXPECT_EQ(readiness.state(), Readiness::State::kReady);
  readiness.Set(Readiness::State::kDraining);
  readiness.Set(Readiness::State::kReady);  // a late reconcile must not undo it
  EXPECT_EQ(readiness.state(), Readiness::State::kDraining);
  EXPECT_EQ(Readiness::Name(Readiness::State::kNotReady), "not_ready");
}

// GET /ready on a real server over a real socket: the whole response.
class ReadyRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    readiness_.Register(router_);
    http::ServerOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<http::Server>(io_, options, router_,
                                             [](int, const std::string& m) { return m; });
    ASSERT_TRUE(server_->Listen().ok());
    server_->Start();
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    server_->Stop();
    work_.reset();
    thread_.join();
  }

  // The response to GET /ready, headers and body; empty when none came in 5 s.
  std::string GetReady() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(server_->port());
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      const std::string request =
          "GET /ready HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
      pollfd pfd{fd, POLLIN, 0};
      char buffer[4096];
      while (::poll(&pfd, 1, 5000) > 0) {
        ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        response.append(buffer, static_cast<std::size_t>(n));
      }
    }
    ::close(fd);
    return response;
  }

  Readiness readiness_;
  http::Router router_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  std::unique_ptr<http::Server> server_;
  std::thread thread_;
};

TEST_F(ReadyRoute, A503WithTheReasonUntilReadyThen200AndNeverCached) {
  readiness_.Set(Readiness::State::kNotReady, "model m is missing");
  std::string not_ready = GetReady();
  EXPECT_EQ(not_ready.rfind("HTTP/1.1 503", 0), 0u) << not_ready;
  EXPECT_NE(not_ready.find(R"({"reason":"model m is missing","status":"not_ready"})"),
            std::string::npos)
      << not_ready;

  readiness_.Set(Readiness::State::kReady);
  std::string ready = GetReady();
  EXPECT_EQ(ready.rfind("HTTP/1.1 200", 0), 0u) << ready;
  EXPECT_NE(ready.find(R"({"status":"ready"})"), std::string::npos) << ready;
  EXPECT_NE(ready.find("Cache-Control: no-store"), std::string::npos) << ready;

  readiness_.Set(Readiness::State::kDraining, "ignored");
  std::string draining = GetReady();
  EXPECT_EQ(draining.rfind("HTTP/1.1 503", 0), 0u) << draining;
  EXPECT_NE(draining.find(R"("status":"draining")"), std::string::npos) << draining;
  EXPECT_EQ(draining.find("ignored"), std::string::npos) << draining;
}

}  // namespace
}  // namespace zest::app
