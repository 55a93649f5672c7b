// API keys: the keys file ($ZEST_HOME/keys.json) that `zest keys` manages
// and the server checks requests against. Only a SHA-256 hash of each key
// is stored (keys are 192 random bits, so a slow password hash adds
// nothing); the key itself is shown once, when it is made.
//
// The file is private to its owner (0600; refused when group or others may
// read or write it) and replaced atomically (temp file, fsync, rename).
// Plain functions; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::http {

// What a key may do. kPublic is for routes that need no key (/health).
enum class Access { kPublic, kInference, kAdmin };
const char* AccessName(Access access);

struct ApiKeyRecord {
  std::string name;  // [A-Za-z0-9._-]{1,64}, unique in a file
  std::string hash;  // lowercase hex SHA-256 of the key
  Access scope = Access::kInference;
  std::string priority = "normal";  // default scheduler priority: low|normal|high
  int rpm = 0;                      // requests per minute; 0 = unlimited
  std::string created;              // UTC, ISO 8601
};

// The principal of the one key `--api-key` / ZEST_API_KEY gives. No key
// in keys.json may take it (AddApiKey refuses it; the Authenticator refuses
// a file that has it while --api-key is set): two keys of one name share
// stores, sessions, stats and limits.
inline constexpr char kSingleKeyPrincipal[] = "api-key";

// A fresh key: "zk-" and 32 base64url characters from OpenSSL's CSPRNG.
std::string GenerateApiKey();
// Lowercase hex SHA-256 of `key`.
std::string HashApiKey(std::string_view key);

// The keys in `path`; an empty list when the file does not exist. Errors for
// a malformed file, one that group/others may access, a name outside
// [A-Za-z0-9._-]{1,64} or two keys of one name.
Result<std::vector<ApiKeyRecord>> LoadApiKeys(const std::filesystem::path& path);
Status SaveApiKeys(const std::filesystem::path& path, const std::vector<ApiKeyRecord>& keys);

// Options of `zest keys add`, validated here so the CLI and tests agree.
struct NewKeyOptions {
  std::string name;
  std::string scope = "inference";
  std::string priority = "normal";
  int rpm = 0;
};
// Adds a key to the file and returns the key itself (to show once).
// kAlreadyExists when the name is taken; kInvalidArgument for bad options.
Result<std::string> AddApiKey(const std::filesystem::path& path, const NewKeyOptions& options);
// kNotFound when no key has that name.
Status RemoveApiKey(const std::filesystem::path& path, std::string_view name);

}  // namespace zest::http
