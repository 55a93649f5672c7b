// Transport: a connection's byte stream, plain TCP or TLS over TCP, behind
// one AsyncReadStream/AsyncWriteStream interface so Beast and the
// connection code are written once. Private to http/.
//
// A TLS transport keeps the ssl::context it was made with alive, so a
// certificate reload (which swaps the server's context) never touches
// connections already open. Used on its connection's strand only.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <optional>
#include <utility>

namespace zest::http {

class Transport {
 public:
  using tcp = boost::asio::ip::tcp;
  using executor_type = tcp::socket::executor_type;

  explicit Transport(tcp::socket socket) : plain_(std::move(socket)) {}
  Transport(tcp::socket socket, std::shared_ptr<boost::asio::ssl::context> context)
      : context_(std::move(context)), tls_(std::in_place, std::move(socket), *context_) {}

  // The TCP socket underneath (for waits, cancel, shutdown and close).
  tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  const tcp::socket& socket() const { return tls_ ? tls_->next_layer() : *plain_; }
  executor_type get_executor() { return socket().get_executor(); }
  bool is_tls() const { return tls_.has_value(); }
  boost::asio::ssl::stream<tcp::socket>& tls() { return *tls_; }

  // Both branches complete with (error_code, size_t), so the initiating
  // functions return the same type for any completion token.
  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    if (tls_) return tls_->async_read_some(buffers, std::forward<Token>(token));
    return plain_->async_read_some(buffers, std::forward<Token>(token));
  }
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    if (tls_) return tls_->async_write_some(buffers, std::forward<Token>(token));
    return plain_->async_write_some(buffers, std::forward<Token>(token));
  }

 private:
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::optional<tcp::socket> plain_;
  std::optional<boost::asio::ssl::stream<tcp::socket>> tls_;
};

}  // namespace zest::http
