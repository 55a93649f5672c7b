#include "http/socket_response_writer.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <utility>

namespace zest::http {
namespace net = boost::asio;
namespace beast_http = boost::beast::http;

namespace {

constexpr auto kTuple = net::as_tuple(net::use_awaitable);

template <class Body>
void FillHeader(beast_http::response<Body>& res, int status, std::string_view content_type,
                const Headers& extra, bool keep_alive, const Headers& common,
                const std::string& request_id) {
  res.version(11);
  res.result(static_cast<unsigned>(status));
  res.set(beast_http::field::server, "zest");
  if (!content_type.empty()) res.set(beast_http::field::content_type, content_type);
  // insert, not set: a handler may legitimately repeat a header.
  for (const auto& [name, value] : extra) res.insert(name, value);
  for (const auto& [name, value] : common) res.set(name, value);
  if (!request_id.empty()) res.set("X-Request-Id", request_id);
  res.keep_alive(keep_alive);
}

}  // namespace

void SocketResponseWriter::Reset(bool keep_alive) {
  keep_alive_ = keep_alive;
  started_ = streaming_ = complete_ = false;
  status_ = 0;
  on_client_gone_ = nullptr;
  common_headers_.clear();
  request_id_.clear();
  error_body_.clear();
  // client_gone_ stays: a gone client does not come back.
}

bool SocketResponseWriter::CheckWrite(const boost::system::error_code& ec) {
  if (!ec) return true;
  spdlog::debug("http: write failed: {}", ec.message());
  MarkClientGone();
  return false;
}

net::awaitable<bool> SocketResponseWriter::Send(int status, std::string_view content_type,
                                                std::string body, const Headers& extra) {
  if (client_gone_) co_return false;
  if (started_) {
    spdlog::error("http: Send() after the response was started");
    co_return false;
  }
  started_ = true;
  status_ = status;
  if (status >= 400) error_body_ = body.substr(0, kErrorBodyKept);
  beast_http::response<beast_http::string_body> res;
  FillHeader(res, status, content_type, extra, keep_alive_, common_headers_, request_id_);
  res.body() = std::move(body);
  res.prepare_payload();
  auto [ec, n] = co_await beast_http::async_write(socket_, res, kTuple);
  complete_ = !ec;
  co_return CheckWrite(ec);
}

net::awaitable<bool> SocketResponseWriter::StartStream(int status, std::string_view content_type,
                                                       const Headers& extra) {
  if (client_gone_) co_return false;
  if (started_) {
    spdlog::error("http: StartStream() after the response was started");
    co_return false;
  }
  started_ = streaming_ = true;
  status_ = status;
  beast_http::response<beast_http::empty_body> res;
  FillHeader(res, status, content_type, extra, keep_alive_, common_headers_, request_id_);
  res.chunked(true);
  beast_http::response_serializer<beast_http::empty_body> serializer(res);
  auto [ec, n] = co_await beast_http::async_write_header(socket_, serializer, kTuple);
  co_return CheckWrite(ec);
}

net::awaitable<bool> SocketResponseWriter::WriteChunk(std::string_view data) {
  if (client_gone_) co_return false;
  if (!streaming_ || complete_) {
    spdlog::error("http: WriteChunk() outside a stream");
    co_return false;
  }
  // An empty chunk would read as the end of the body.
  if (data.empty()) co_return true;
  auto [ec, n] =
      co_await net::async_write(socket_, beast_http::make_chunk(net::buffer(data)), kTuple);
  co_return CheckWrite(ec);
}

net::awaitable<bool> SocketResponseWriter::EndStream() {
  if (client_gone_) co_return false;
  if (!streaming_ || complete_) {
    spdlog::error("http: EndStream() outside a stream");
    co_return false;
  }
  auto [ec, n] = co_await net::async_write(socket_, beast_http::make_chunk_last(), kTuple);
  complete_ = !ec;
  co_return CheckWrite(ec);
}

void SocketResponseWriter::OnClientGone(std::function<void()> callback) {
  if (!client_gone_) {
    on_client_gone_ = std::move(callback);
    return;
  }
  // Already gone: run it now. Posting it instead could run it after the
  // handler (and whatever the callback refers to) has finished.
  if (!callback || complete_) return;
  try {
    callback();
  } catch (const std::exception& e) {
    spdlog::error("http: client-gone callback threw: {}", e.what());
  }
}

void SocketResponseWriter::MarkClientGone() {
  if (client_gone_) return;
  client_gone_ = true;
  if (complete_ || !on_client_gone_) return;
  auto callback = std::exchange(on_client_gone_, nullptr);
  try {
    callback();
  } catch (const std::exception& e) {
    spdlog::error("http: client-gone callback threw: {}", e.what());
  }
}

}  // namespace zest::http
