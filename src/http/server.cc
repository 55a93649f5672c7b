#include "http/server.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <mutex>
#include <utility>

#include "core/mutex.h"
#include "http/connection.h"
#include "http/event_loops.h"
#include "http/tls_context.h"

namespace zest::http {
namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace {

constexpr auto kTuple = net::as_tuple(net::use_awaitable);
// After an accept error such as EMFILE, pause instead of spinning.
constexpr auto kAcceptErrorPause = std::chrono::milliseconds(100);

// The accepting side of a server, shared with its accept coroutine so that
// coroutine stays valid even if the Server is destroyed first.
struct Listener {
  explicit Listener(EventLoops& event_loops)
      : loops(event_loops), acceptor(net::make_strand(event_loops.loop(0))) {}

  EventLoops& loops;       // connections are spread over them
  tcp::acceptor acceptor;  // on loop 0, used on its strand once Start() was called
  std::shared_ptr<const ServeContext> context;
  std::shared_ptr<ConnectionRegistry> registry;
  std::atomic<bool> stopped{false};

  // The TLS context new connections get; null for plain HTTP.
  std::shared_ptr<net::ssl::context> CurrentTls() {
    MutexLock lock(tls_mutex);
    return tls;
  }
  Mutex tls_mutex;
  std::shared_ptr<net::ssl::context> tls GUARDED_BY(tls_mutex);
};

// Thousands of idle clients each hold a descriptor: lift the soft limit to
// the hard one rather than failing accept() at 1024.
void RaiseFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// `socket` served by `executor`'s loop: the same descriptor, handed from
// the loop that accepted it (a socket's loop is fixed when it is made, and
// the loop is chosen only once the connection is here).
Result<tcp::socket> OnExecutor(tcp::socket socket, const net::any_io_executor& executor) {
  error_code ec;
  const tcp::endpoint local = socket.local_endpoint(ec);
  if (ec) return Unavailable("local address: " + ec.message());
  const tcp::socket::native_handle_type fd = socket.release(ec);
  if (ec) return Unavailable("release: " + ec.message());
  tcp::socket moved(executor);
  moved.assign(local.protocol(), fd, ec);
  if (ec) {
    ::close(fd);
    return Unavailable("assign: " + ec.message());
  }
  return moved;
}

net::awaitable<void> AcceptLoop(std::shared_ptr<Listener> listener) {
  while (!listener->stopped) {
    auto [ec, accepted] =
        co_await listener->acceptor.async_accept(listener->loops.Serial(0), kTuple);
    if (listener->stopped || ec == net::error::operation_aborted) break;
    if (ec) {
      spdlog::warn("http: accept failed: {}", ec.message());
      net::steady_timer pause(listener->acceptor.get_executor(), kAcceptErrorPause);
      co_await pause.async_wait(kTuple);
      continue;
    }
    // Each connection lives on the event loop with the fewest connections
    // now that it is here (event_loops.h), on an executor that runs its
    // handlers one at a time: its handler, disconnect watch and Stop()
    // never run concurrently, whatever the number of io threads.
    EventLoops::Placement place = listener->loops.ForConnection();
    Result<tcp::socket> socket = place.loop == 0 ? Result<tcp::socket>(std::move(accepted))
                                                 : OnExecutor(std::move(accepted), place.executor);
    if (!socket.ok()) {
      spdlog::warn("http: cannot serve an accepted connection: {}", socket.status().message());
      continue;
    }
    // Each SSE event is one small write that must leave at once; Nagle's
    // algorithm would hold it back until the previous one is acknowledged.
    error_code nodelay_ec;
    socket->set_option(net::ip::tcp::no_delay(true), nodelay_ec);
    std::shared_ptr<net::ssl::context> tls = listener->CurrentTls();
    Transport transport =
        tls ? Transport(std::move(*socket), std::move(tls)) : Transport(std::move(*socket));
    Connection::Launch(std::make_shared<Connection>(std::move(transport), listener->context,
                                                    listener->registry, std::move(place.hold)));
  }
}

Result<net::ip::address> ResolveHost(net::io_context& io, const std::string& host) {
  error_code ec;
  net::ip::address address = net::ip::make_address(host, ec);
  if (!ec) return address;
  // A name such as "localhost": resolving once at startup may block briefly.
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, "", ec);
  if (ec || results.empty()) {
    return InvalidArgument("cannot resolve listen host '" + host + "': " + ec.message());
  }
  return results.begin()->endpoint().address();
}

}  // namespace

struct Server::Impl {
  std::unique_ptr<EventLoops> own_loops;  // when given one io_context
  ServerOptions options;
  std::shared_ptr<Listener> listener;
  uint16_t port = 0;
};

Server::Server(net::io_context& io, ServerOptions options, const Router& router,
               ErrorRenderer render_error)
    : Server(nullptr, io, std::move(options), router, std::move(render_error)) {}

Server::Server(EventLoops& loops, ServerOptions options, const Router& router,
               ErrorRenderer render_error)
    : Server(&loops, loops.loop(0), std::move(options), router, std::move(render_error)) {}

Server::Server(EventLoops* loops, net::io_context& io, ServerOptions options, const Router& router,
               ErrorRenderer render_error)
    : impl_(std::make_unique<Impl>()) {
  if (loops == nullptr) {  // any number of threads may run `io`
    impl_->own_loops = std::make_unique<EventLoops>(io, 1, EventLoops::Threads::kShared);
    loops = impl_->own_loops.get();
  }
  impl_->options = options;
  impl_->listener = std::make_shared<Listener>(*loops);
  impl_->listener->registry = std::make_shared<ConnectionRegistry>(ConnectionRegistry::Limits{
      options.max_connections_per_client, options.max_connections, options.max_streams_per_client});
  auto context = std::make_shared<ServeContext>();
  context->router = &router;
  context->render_error = std::move(render_error);
  context->cors = CorsPolicy(options.cors_origins);
  context->hosts = HostPolicy(options.host, options.allowed_hosts, MachineName());
  context->bodies = std::make_shared<ByteBudget>(options.max_body_memory_bytes);
  context->options = std::move(options);
  impl_->listener->context = std::move(context);
}

// Stop posts to the io_context: only an allocation can throw there, and then
// terminating is the right end.
Server::~Server() { Stop(); }  // NOLINT(bugprone-exception-escape)

Status Server::ReloadTls() {
  const ServerOptions& o = impl_->options;
  if (o.tls_cert.empty() && o.tls_key.empty()) return Status::Ok();
  if (o.tls_cert.empty() || o.tls_key.empty()) {
    return InvalidArgument("TLS needs both a certificate (--tls-cert) and a key (--tls-key)");
  }
  ZEST_ASSIGN_OR_RETURN(std::shared_ptr<net::ssl::context> context,
                        MakeServerTlsContext(o.tls_cert, o.tls_key));
  MutexLock lock(impl_->listener->tls_mutex);
  impl_->listener->tls = std::move(context);
  return Status::Ok();
}

bool Server::tls() const { return impl_->listener->CurrentTls() != nullptr; }

Status Server::Listen() {
  Listener& listener = *impl_->listener;
  ZEST_RETURN_IF_ERROR(ReloadTls());
  RaiseFileLimit();
  ZEST_ASSIGN_OR_RETURN(net::ip::address address,
                        ResolveHost(listener.loops.loop(0), impl_->options.host));
  tcp::endpoint endpoint(address, impl_->options.port);
  const std::string where = impl_->options.host + ":" + std::to_string(impl_->options.port);
  error_code ec;
  listener.acceptor.open(endpoint.protocol(), ec);
  if (!ec) listener.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) listener.acceptor.bind(endpoint, ec);
  if (!ec) listener.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    listener.acceptor.close(ignored);
    return Unavailable("cannot listen on " + where + ": " + ec.message());
  }
  impl_->port = listener.acceptor.local_endpoint(ec).port();
  spdlog::info("http: listening on {}:{}", impl_->options.host, impl_->port);
  return Status::Ok();
}

void Server::Start() {
  auto listener = impl_->listener;
  net::co_spawn(listener->acceptor.get_executor(), AcceptLoop(listener),
                [](const std::exception_ptr& error) {
                  if (!error) return;
                  try {
                    std::rethrow_exception(error);
                  } catch (const std::exception& e) {
                    spdlog::error("http: accept loop failed: {}", e.what());
                  }
                });
}

void Server::StopAccepting() {
  auto listener = impl_->listener;
  net::post(listener->acceptor.get_executor(), [listener] {
    error_code ignored;
    listener->acceptor.close(ignored);
  });
}

void Server::Stop() {
  auto listener = impl_->listener;
  if (listener->stopped.exchange(true)) return;
  StopAccepting();
  listener->registry->AbortAll();
}

uint16_t Server::port() const { return impl_->port; }

}  // namespace zest::http
