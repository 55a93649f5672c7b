#include "http/api_keys.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config/secure_file.h"
#include "core/private_dirs.h"
#include "core/strings.h"

namespace zest::http {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr char kBase64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// A bad name as it may be shown in an error: printable ASCII, at most 64.
std::string SanitizedName(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

Result<Access> ParseScope(std::string_view text) {
  if (text == "inference") return Access::kInference;
  if (text == "admin") return Access::kAdmin;
  return InvalidArgument("scope '" + std::string(text) + "' is not one of inference, admin");
}

bool ValidPriority(std::string_view p) { return p == "low" || p == "normal" || p == "high"; }

std::string UtcNow() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

Result<ApiKeyRecord> RecordFromJson(const json& j) {
  ApiKeyRecord r;
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("hash") ||
      !j["hash"].is_string()) {
    return InvalidArgument("every key needs a string 'name' and 'hash'");
  }
  r.name = j["name"].get<std::string>();
  // Names key stores, sessions, stats and limits, and appear in logs: the
  // same charset as `zest keys add`, whoever wrote the file.
  if (!ValidName(r.name)) {
    return InvalidArgument("a key name must be 1-64 of A-Z a-z 0-9 . _ -, not '" +
                           SanitizedName(r.name) + "'");
  }
  r.hash = j["hash"].get<std::string>();
  if (r.hash.size() != 64 || r.hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return InvalidArgument("key '" + r.name + "': 'hash' is not a hex SHA-256");
  }
  ZEST_ASSIGN_OR_RETURN(r.scope, ParseScope(j.value("scope", std::string("inference"))));
  r.priority = j.value("priority", std::string("normal"));
  if (!ValidPriority(r.priority)) return InvalidArgument("key '" + r.name + "': bad priority");
  if (j.contains("rpm") && !j["rpm"].is_number_integer()) {
    return InvalidArgument("key '" + r.name + "': 'rpm' must be an integer");
  }
  r.rpm = std::max(0, j.value("rpm", 0));
  r.created = j.value("created", std::string());
  return r;
}

}  // namespace

const char* AccessName(Access access) {
  switch (access) {
    case Access::kPublic:
      return "public";
    case Access::kInference:
      return "inference";
    case Access::kAdmin:
      return "admin";
  }
  return "?";
}

std::string GenerateApiKey() {
  unsigned char random[24];
  if (RAND_bytes(random, sizeof random) != 1) throw std::runtime_error("RAND_bytes failed");
  std::string key = "zk-";
  // 24 bytes = 192 bits = 32 base64 characters, no padding.
  for (std::size_t i = 0; i < sizeof random; i += 3) {
    uint32_t v = (uint32_t{random[i]} << 16) | (uint32_t{random[i + 1]} << 8) | random[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) key += kBase64Url[(v >> shift) & 63];
  }
  return key;
}

std::string HashApiKey(std::string_view key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(key.data(), key.size(), digest, &length, EVP_sha256(), nullptr);
  return LowerHex(digest, length);
}

Result<std::vector<ApiKeyRecord>> LoadApiKeys(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::vector<ApiKeyRecord>{};
  ZEST_RETURN_IF_ERROR(config::CheckFilePermissions(
      path, 0077, "it holds API keys and must be private to its owner"));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("keys") || !doc["keys"].is_array()) {
    return InvalidArgument(path.string() + ": not a keys file ({\"keys\": [...]})");
  }
  std::vector<ApiKeyRecord> keys;
  for (const json& j : doc["keys"]) {
    auto record = RecordFromJson(j);
    if (!record.ok()) return InvalidArgument(path.string() + ": " + record.status().message());
    // Two keys of one name would be one principal: one store, one limit.
    for (const ApiKeyRecord& k : keys) {
      if (k.name == record->name) {
        return InvalidArgument(path.string() + ": two keys are named '" + k.name +
                               "' (names must be unique)");
      }
    }
    keys.push_back(std::move(*record));
  }
  return keys;
}

Status SaveApiKeys(const fs::path& path, const std::vector<ApiKeyRecord>& keys) {
  json list = json::array();
  for (const ApiKeyRecord& k : keys) {
    list.push_back({{"name", k.name},
                    {"hash", k.hash},
                    {"scope", AccessName(k.scope)},
                    {"priority", k.priority},
                    {"rpm", k.rpm},
                    {"created", k.created}});
  }
  if (path.has_parent_path()) ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(path.parent_path()));
  return config::WriteFileAtomically(path, json{{"keys", list}}.dump(2) + "\n", 0600);
}

Result<std::string> AddApiKey(const fs::path& path, const NewKeyOptions& options) {
  if (!ValidName(options.name)) {
    return InvalidArgument("key name '" + options.name + "' must be 1-64 of A-Z a-z 0-9 . _ -");
  }
  if (options.name == kSingleKeyPrincipal) {
    return InvalidArgument("key name '" + options.name +
                           "' is the name of --api-key's key (ZEST_API_KEY); choose another");
  }
  ZEST_ASSIGN_OR_RETURN(Access scope, ParseScope(options.scope));
  if (!ValidPriority(options.priority)) {
    return InvalidArgument("priority '" + options.priority + "' is not one of low, normal, high");
  }
  if (options.rpm < 0) return InvalidArgument("rpm must be 0 (unlimited) or more");
  ZEST_ASSIGN_OR_RETURN(std::vector<ApiKeyRecord> keys, LoadApiKeys(path));
  for (const ApiKeyRecord& k : keys) {
    if (k.name == options.name) {
      return Status(ErrorCode::kAlreadyExists, "a key named '" + options.name + "' exists");
    }
  }
  std::string key = GenerateApiKey();
  keys.push_back({options.name, HashApiKey(key), scope, options.priority, options.rpm, UtcNow()});
  ZEST_RETURN_IF_ERROR(SaveApiKeys(path, keys));
  return key;
}

Status RemoveApiKey(const fs::path& path, std::string_view name) {
  ZEST_ASSIGN_OR_RETURN(std::vector<ApiKeyRecord> keys, LoadApiKeys(path));
  auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.name == name; });
  if (it == keys.end()) return NotFound("no key named '" + std::string(name) + "'");
  keys.erase(it);
  return SaveApiKeys(path, keys);
}

}  // namespace zest::http
