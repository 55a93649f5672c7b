#include "http/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace zest::http {
namespace ssl = boost::asio::ssl;

namespace {

// TLS 1.2 suites; TLS 1.3 has only AEAD suites and uses its defaults.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

}  // namespace

Result<std::shared_ptr<ssl::context>> MakeServerTlsContext(
    const std::filesystem::path& cert_chain, const std::filesystem::path& private_key) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    return Internal("TLS cipher list rejected: " + OpenSslError());
  }
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_chain.c_str()) != 1) {
    return InvalidArgument("cannot use TLS certificate " + cert_chain.string() + ": " +
                           OpenSslError());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, private_key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return InvalidArgument("cannot use TLS key " + private_key.string() + ": " + OpenSslError());
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return InvalidArgument("TLS key " + private_key.string() + " does not match certificate " +
                           cert_chain.string());
  }
  return context;
}

}  // namespace zest::http
