// The server side of TLS: an OpenSSL context with TLS 1.2 as the minimum,
// forward-secret AEAD ciphers only (ECDHE with AES-GCM or ChaCha20-Poly1305;
// TLS 1.3's own suites), no compression, no renegotiation, and the
// certificate chain and key from PEM files. Private to http/.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>

#include "core/result.h"

namespace zest::http {

// kInvalidArgument naming the file and OpenSSL's reason when the chain or
// key cannot be read or do not match.
Result<std::shared_ptr<boost::asio::ssl::context>> MakeServerTlsContext(
    const std::filesystem::path& cert_chain, const std::filesystem::path& private_key);

}  // namespace zest::http
