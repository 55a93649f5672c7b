// systemd's notify protocol as zest speaks it: one datagram to the socket
// $NOTIFY_SOCKET names, a path or an abstract name ('@'); nothing without it.
#include "app/service_notify.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/testing/temp_dir.h"

namespace zest::app {
namespace {

// A datagram socket bound where systemd would listen; its name as
// NOTIFY_SOCKET writes it.
struct Listener {
  explicit Listener(const std::string& name) : fd(::socket(AF_UNIX, SOCK_DGRAM, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, name.data(), name.size());
    if (name[0] == '@') address.sun_path[0] = '\0';
    const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), size), 0) << std::strerror(errno);
    ::setenv("NOTIFY_SOCKET", name.c_str(), 1);
  }
  ~Listener() {
    ::unsetenv("NOTIFY_SOCKET");
    ::close(fd);
  }
  std::string Next() const {
    char buffer[512];
    ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    return n < 0 ? "" : std::string(buffer, static_cast<size_t>(n));
  }
  int fd;
};

TEST(ServiceNotify, SendsEachStateAsOneDatagram) {
  testing::TempDir dir("notify");
  Listener systemd((dir.path() / "notify").string());
  EXPECT_TRUE(NotifyService("READY=1\nSTATUS=listening on 127.0.0.1:9378"));
  EXPECT_EQ(systemd.Next(), "READY=1\nSTATUS=listening on 127.0.0.1:9378");
  EXPECT_TRUE(NotifyReloading());
  const std::string reloading = systemd.Next();
  EXPECT_TRUE(reloading.starts_with("RELOADING=1\nMONOTONIC_USEC=")) << reloading;
  EXPECT_GT(std::stoll(reloading.substr(reloading.find('=', 12) + 1)), 0);
}

TEST(ServiceNotify, ReachesAnAbstractSocket) {
  Listener systemd("@zest-notify-test-" + std::to_string(::getpid()));
  EXPECT_TRUE(NotifyService("STOPPING=1"));
  EXPECT_EQ(systemd.Next(), "STOPPING=1");
}

TEST(ServiceNotify, DoesNothingOutsideSystemd) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(NotifyService("READY=1"));
  ::setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
  EXPECT_FALSE(NotifyService("READY=1"));
  ::unsetenv("NOTIFY_SOCKET");
}

}  // namespace
}  // namespace zest::app
