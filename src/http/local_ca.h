// A local certificate authority for `zest cert`: an EC P-256 CA (10 years)
// and a server certificate it signs (397 days) for the machine's names, made
// with OpenSSL's C API. The CA is kept and reused, so clients that trust it
// keep trusting re-issued server certificates. Private keys are written
// 0600, certificates 0644, each file atomically. Plain functions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::http {

struct LocalCertFiles {
  std::filesystem::path ca_cert, ca_key, server_cert, server_key;
};
LocalCertFiles LocalCertFilesIn(const std::filesystem::path& dir);

struct LocalCertResult {
  LocalCertFiles files;
  bool ca_created = false;         // false: an existing CA was reused
  std::vector<std::string> names;  // the server certificate's SANs
};

// Creates `dir` (0700) and in it the CA (unless present) and a new server
// certificate for `dns_names` and `ip_addresses`.
Result<LocalCertResult> CreateLocalCertificates(const std::filesystem::path& dir,
                                                const std::vector<std::string>& dns_names,
                                                const std::vector<std::string>& ip_addresses);

}  // namespace zest::http
