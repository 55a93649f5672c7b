// `zest cert`: a local CA and a server certificate for this machine's names
// under $ZEST_HOME/tls, and how to use and trust them.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "config/settings.h"
#include "http/local_ca.h"

namespace zest::cli {
namespace {

struct CertOptions {
  std::vector<std::string> names;  // extra DNS names
  std::vector<std::string> ips;    // extra IP addresses
};

std::vector<std::string> MachineNames(const std::vector<std::string>& extra) {
  std::vector<std::string> names = {"localhost"};
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && *host && std::string(host) != "localhost") {
    names.emplace_back(host);
  }
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

int MakeCerts(const CertOptions& options) {
  config::LoadInputs inputs{config::ProcessEnv, {}, std::nullopt};
  auto loaded = config::LoadSettings(inputs);
  if (!loaded.ok()) {
    std::fprintf(stderr, "zest: %s\n", loaded.status().message().c_str());
    return 2;
  }
  std::vector<std::string> ips = {"127.0.0.1", "::1"};
  ips.insert(ips.end(), options.ips.begin(), options.ips.end());
  auto made =
      http::CreateLocalCertificates(loaded->settings.TlsDir(), MachineNames(options.names), ips);
  if (!made.ok()) {
    std::fprintf(stderr, "zest: %s\n", made.status().message().c_str());
    return 1;
  }
  const http::LocalCertFiles& f = made->files;
  std::string names;
  for (const std::string& n : made->names) names += (names.empty() ? "" : ", ") + n;
  std::printf("%s local CA: %s (key %s)\n", made->ca_created ? "Created" : "Reused",
              f.ca_cert.c_str(), f.ca_key.c_str());
  std::printf("Server certificate for %s:\n  %s\n  %s (key)\n\n", names.c_str(),
              f.server_cert.c_str(), f.server_key.c_str());
  std::printf("Serve HTTPS:\n  zest serve --tls-cert %s --tls-key %s\n\n", f.server_cert.c_str(),
              f.server_key.c_str());
  std::printf(
      "Trust the CA (once per client machine):\n"
      "  Debian/Ubuntu: sudo cp %s /usr/local/share/ca-certificates/zest-local-ca.crt && "
      "sudo update-ca-certificates\n"
      "  Fedora/RHEL:   sudo cp %s /etc/pki/ca-trust/source/anchors/zest-local-ca.pem && "
      "sudo update-ca-trust\n"
      "  macOS:         sudo security add-trusted-cert -d -r trustRoot -k "
      "/Library/Keychains/System.keychain %s\n"
      "  Node.js:       NODE_EXTRA_CA_CERTS=%s\n"
      "  Python:        SSL_CERT_FILE=%s (requests: REQUESTS_CA_BUNDLE)\n"
      "  curl:          curl --cacert %s https://localhost:9378/health\n",
      f.ca_cert.c_str(), f.ca_cert.c_str(), f.ca_cert.c_str(), f.ca_cert.c_str(), f.ca_cert.c_str(),
      f.ca_cert.c_str());
  return 0;
}

}  // namespace

void AddCertCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<CertOptions>();
  auto* cert = app.add_subcommand(
      "cert", "Create a local CA and a TLS server certificate for this machine ($ZEST_HOME/tls)");
  cert->add_option("--name", options->names, "Another DNS name for the certificate (repeatable)");
  cert->add_option("--ip", options->ips, "Another IP address for the certificate (repeatable)");
  cert->callback([action, options] { *action = [options] { return MakeCerts(*options); }; });
}

}  // namespace zest::cli
