#include "http/local_ca.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "config/secure_file.h"
#include "core/private_dirs.h"

namespace zest::http {
namespace fs = std::filesystem;

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Free>;
using CertPtr = std::unique_ptr<X509, Free>;
using BioPtr = std::unique_ptr<BIO, Free>;

constexpr long kDay = 24 * 60 * 60;

Status OpenSslFailure(const std::string& what) {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  char text[256] = "unknown error";
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  return Internal(what + ": " + text);
}

Result<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslFailure("cannot generate an EC key");
  return key;
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return OpenSslFailure("cannot add certificate extension " + value);
  }
  return Status::Ok();
}

// A certificate for `key`, named `common_name`, valid for `days`, with a
// random 127-bit serial; the caller adds extensions and signs it.
Result<CertPtr> NewCert(EVP_PKEY* key, const std::string& common_name, long days) {
  CertPtr cert(X509_new());
  std::unique_ptr<BIGNUM, Free> serial(BN_new());
  if (!cert || !serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get()))) {
    return OpenSslFailure("cannot start a certificate");
  }
  X509_set_version(cert.get(), 2);  // v3
  // An hour of slack for clocks slightly behind ours.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * kDay);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("zest"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  return cert;
}

Status Sign(X509* cert, EVP_PKEY* issuer_key) {
  if (X509_sign(cert, issuer_key, EVP_sha256()) <= 0) return OpenSslFailure("cannot sign");
  return Status::Ok();
}

Result<std::string> ToPem(X509* cert, EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  int ok = cert ? PEM_write_bio_X509(bio.get(), cert)
                : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  if (ok != 1) return OpenSslFailure("cannot encode PEM");
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

Status WritePem(const fs::path& path, X509* cert, EVP_PKEY* key, unsigned mode) {
  ZEST_ASSIGN_OR_RETURN(std::string pem, ToPem(cert, key));
  return config::WriteFileAtomically(path, pem, mode);
}

struct Ca {
  CertPtr cert;
  KeyPtr key;
};

Result<Ca> LoadCa(const LocalCertFiles& files) {
  ZEST_RETURN_IF_ERROR(config::CheckFilePermissions(
      files.ca_key, 0077, "it is the local CA's private key and must be private to its owner"));
  BioPtr cert_bio(BIO_new_file(files.ca_cert.c_str(), "r"));
  BioPtr key_bio(BIO_new_file(files.ca_key.c_str(), "r"));
  if (!cert_bio || !key_bio)
    return OpenSslFailure("cannot open the CA in " + files.ca_cert.parent_path().string());
  Ca ca{CertPtr(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)),
        KeyPtr(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr))};
  if (!ca.cert || !ca.key || X509_check_private_key(ca.cert.get(), ca.key.get()) != 1) {
    return OpenSslFailure("the CA in " + files.ca_cert.parent_path().string() +
                          " is unreadable or its key does not match");
  }
  return ca;
}

Result<Ca> CreateCa(const LocalCertFiles& files, const std::string& host) {
  ZEST_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  ZEST_ASSIGN_OR_RETURN(CertPtr cert, NewCert(key.get(), "zest local CA (" + host + ")", 3650));
  X509* c = cert.get();
  X509_set_issuer_name(c, X509_get_subject_name(c));
  ZEST_RETURN_IF_ERROR(AddExtension(c, c, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
  ZEST_RETURN_IF_ERROR(AddExtension(c, c, NID_key_usage, "critical,keyCertSign,cRLSign"));
  ZEST_RETURN_IF_ERROR(AddExtension(c, c, NID_subject_key_identifier, "hash"));
  ZEST_RETURN_IF_ERROR(Sign(c, key.get()));
  ZEST_RETURN_IF_ERROR(WritePem(files.ca_key, nullptr, key.get(), 0600));
  ZEST_RETURN_IF_ERROR(WritePem(files.ca_cert, c, nullptr, 0644));
  return Ca{std::move(cert), std::move(key)};
}

}  // namespace

LocalCertFiles LocalCertFilesIn(const fs::path& dir) {
  return {dir / "ca.pem", dir / "ca-key.pem", dir / "server.pem", dir / "server-key.pem"};
}

Result<LocalCertResult> CreateLocalCertificates(const fs::path& dir,
                                                const std::vector<std::string>& dns_names,
                                                const std::vector<std::string>& ip_addresses) {
  if (dns_names.empty()) return InvalidArgument("a server certificate needs at least one name");
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, ec);  // keys live here, even in an existing one
  LocalCertResult result;
  result.files = LocalCertFilesIn(dir);
  const LocalCertFiles& f = result.files;
  result.ca_created = !fs::exists(f.ca_cert) || !fs::exists(f.ca_key);
  ZEST_ASSIGN_OR_RETURN(Ca ca, result.ca_created ? CreateCa(f, dns_names.back()) : LoadCa(f));

  std::string san;
  for (const std::string& name : dns_names) {
    san += (san.empty() ? "DNS:" : ",DNS:") + name;
    result.names.push_back(name);
  }
  for (const std::string& ip : ip_addresses) {
    san += ",IP:" + ip;
    result.names.push_back(ip);
  }
  ZEST_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  ZEST_ASSIGN_OR_RETURN(CertPtr cert, NewCert(key.get(), dns_names.back(), 397));
  X509* c = cert.get();
  X509_set_issuer_name(c, X509_get_subject_name(ca.cert.get()));
  ZEST_RETURN_IF_ERROR(AddExtension(c, ca.cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  ZEST_RETURN_IF_ERROR(AddExtension(c, ca.cert.get(), NID_key_usage, "critical,digitalSignature"));
  ZEST_RETURN_IF_ERROR(AddExtension(c, ca.cert.get(), NID_ext_key_usage, "serverAuth"));
  ZEST_RETURN_IF_ERROR(AddExtension(c, ca.cert.get(), NID_subject_alt_name, san));
  ZEST_RETURN_IF_ERROR(AddExtension(c, ca.cert.get(), NID_subject_key_identifier, "hash"));
  ZEST_RETURN_IF_ERROR(
      AddExtension(c, ca.cert.get(), NID_authority_key_identifier, "keyid:always"));
  ZEST_RETURN_IF_ERROR(Sign(c, ca.key.get()));
  ZEST_RETURN_IF_ERROR(WritePem(f.server_key, nullptr, key.get(), 0600));
  // The chain file carries the CA too, so clients that trust it verify.
  ZEST_ASSIGN_OR_RETURN(std::string leaf, ToPem(c, nullptr));
  ZEST_ASSIGN_OR_RETURN(std::string root, ToPem(ca.cert.get(), nullptr));
  ZEST_RETURN_IF_ERROR(config::WriteFileAtomically(f.server_cert, leaf + root, 0644));
  return result;
}

}  // namespace zest::http
