#include "http/authenticator.h"

#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <cctype>

#include "http/client_group.h"

namespace zest::http {
namespace fs = std::filesystem;

namespace {

constexpr auto kFileCheckInterval = std::chrono::seconds(1);
// Wrong keys an address may send at full speed: a burst of this many, then
// this many a minute; each one past that waits kFailureDelay for its 401.
constexpr int kFailuresPerMinute = 30;
constexpr auto kFailureDelay = std::chrono::milliseconds(1000);
// Clients (client_group.h) remembered at most; past it, the one whose last
// wrong key is oldest goes.
constexpr std::size_t kMaxFailureClients = 4096;

std::string Unhex(std::string_view hex) {
  std::string raw;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    raw += static_cast<char>((nibble(hex[i]) << 4) | nibble(hex[i + 1]));
  }
  return raw;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The presented key: "Authorization: Bearer KEY" (OpenAI clients), else
// "x-api-key: KEY" (Anthropic clients). Empty when neither is there.
std::string_view PresentedKey(const Headers& headers) {
  std::string_view auth = Trim(FindHeader(headers, "Authorization"));
  if (auth.size() > 7) {
    std::string scheme(auth.substr(0, 7));
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme == "bearer ") return Trim(auth.substr(7));
  }
  return Trim(FindHeader(headers, "x-api-key"));
}

AuthDecision Deny(int status, std::string message) {
  AuthDecision d;
  d.status = status;
  d.message = std::move(message);
  return d;
}

}  // namespace

Result<std::unique_ptr<Authenticator>> Authenticator::Create(AuthOptions options) {
  std::unique_ptr<Authenticator> auth(new Authenticator(std::move(options)));
  MutexLock lock(auth->mutex_);
  ZEST_RETURN_IF_ERROR(auth->LoadLocked());
  auth->last_check_ = Clock::now();
  return auth;
}

Status Authenticator::LoadLocked() {
  std::vector<Entry> entries;
  if (!options_.single_key.empty()) {
    entries.push_back(
        {kSingleKeyPrincipal, Unhex(HashApiKey(options_.single_key)), Access::kAdmin, "", 0});
  }
  std::error_code ec;
  fs::file_time_type mtime{};
  bool present = !options_.keys_file.empty() && fs::exists(options_.keys_file, ec);
  if (present) {
    mtime = fs::last_write_time(options_.keys_file, ec);
    ZEST_ASSIGN_OR_RETURN(std::vector<ApiKeyRecord> records, LoadApiKeys(options_.keys_file));
    for (const ApiKeyRecord& r : records) {
      if (!options_.single_key.empty() && r.name == kSingleKeyPrincipal) {
        return InvalidArgument(options_.keys_file.string() + ": a key is named '" + r.name +
                               "', the name of --api-key's key (ZEST_API_KEY): rename it");
      }
      entries.push_back({r.name, Unhex(r.hash), r.scope, r.priority, r.rpm});
    }
  }
  if (entries.empty() && required_ && !entries_.empty()) {
    spdlog::warn(
        "auth: the last API key was removed; every route but /health now answers 401 "
        "until a key is added (`zest keys add NAME --scope admin`)");
  }
  required_ = required_ || !entries.empty();
  entries_ = std::move(entries);
  file_present_ = present;
  file_mtime_ = mtime;
  // Buckets of removed keys go; those of kept keys keep their state.
  std::erase_if(buckets_, [this](const auto& item) REQUIRES(mutex_) {
    for (const Entry& e : entries_) {
      if (e.name == item.first) return false;
    }
    return true;
  });
  return Status::Ok();
}

Status Authenticator::Reload() {
  MutexLock lock(mutex_);
  Status st = LoadLocked();
  if (st.ok()) spdlog::info("auth: {} key(s) in force", entries_.size());
  return st;
}

void Authenticator::MaybeReloadLocked(Clock::time_point now) {
  if (options_.keys_file.empty() || now - last_check_ < kFileCheckInterval) return;
  last_check_ = now;
  std::error_code ec;
  bool present = fs::exists(options_.keys_file, ec);
  fs::file_time_type mtime =
      present ? fs::last_write_time(options_.keys_file, ec) : fs::file_time_type{};
  if (present == file_present_ && mtime == file_mtime_) return;
  if (Status st = LoadLocked(); !st.ok()) {
    // Keep the keys in force: a broken edit must not open the server.
    spdlog::error("auth: keeping the previous keys: {}", st.message());
    file_present_ = present;
    file_mtime_ = mtime;
    return;
  }
  spdlog::info("auth: keys file changed; {} key(s) in force", entries_.size());
}

bool Authenticator::enabled() const {
  MutexLock lock(mutex_);
  return required_;
}

std::chrono::milliseconds Authenticator::NoteFailureLocked(std::string_view address,
                                                           Clock::time_point now) {
  const std::string client = ClientGroup(address);
  auto it = failures_.find(client);
  if (it == failures_.end()) {
    if (failures_.size() >= kMaxFailureClients) {  // the least recent out: O(1), bounded
      failures_.erase(failure_order_.back());
      failure_order_.pop_back();
    }
    failure_order_.push_front(client);
    it =
        failures_
            .emplace(client, Failures{TokenBucket(kFailuresPerMinute, now), failure_order_.begin()})
            .first;
  } else {
    failure_order_.splice(failure_order_.begin(), failure_order_, it->second.order);
  }
  return it->second.allowance.Take(now) > 0 ? kFailureDelay : std::chrono::milliseconds(0);
}

const Authenticator::Entry* Authenticator::MatchLocked(std::string_view key) const {
  std::string digest = Unhex(HashApiKey(key));
  const Entry* found = nullptr;
  // No early exit: every entry is compared, in constant time each.
  for (const Entry& e : entries_) {
    if (e.digest.size() == digest.size() &&
        CRYPTO_memcmp(e.digest.data(), digest.data(), digest.size()) == 0 && found == nullptr) {
      found = &e;
    }
  }
  return found;
}

AuthDecision Authenticator::IdentifyLocked(std::string_view key, std::string_view address,
                                           Clock::time_point now) {
  AuthDecision d;
  d.keys_required = true;
  d.scope = Access::kPublic;  // no key, or a wrong one: what anyone may do
  if (key.empty()) return d;
  const Entry* entry = MatchLocked(key);
  if (entry == nullptr) {
    // Allowed, but no cheaper a way to guess keys than any other route.
    d.delay = NoteFailureLocked(address, now);
    return d;
  }
  d.principal = entry->name;
  d.priority = entry->priority;
  d.scope = entry->scope;
  return d;
}

AuthDecision Authenticator::Check(const Headers& headers, Access required,
                                  std::string_view address) {
  Clock::time_point now = Clock::now();
  MutexLock lock(mutex_);
  MaybeReloadLocked(now);
  if (!required_) return {};
  if (required == Access::kPublic) return IdentifyLocked(PresentedKey(headers), address, now);
  if (entries_.empty()) {
    return Deny(401,
                "this server has no API key any more, so it refuses every request: add one "
                "with `zest keys add NAME --scope admin`");
  }
  std::string_view key = PresentedKey(headers);
  if (key.empty()) {
    return Deny(401, "missing API key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'");
  }
  const Entry* entry = MatchLocked(key);
  if (entry == nullptr) {
    AuthDecision d = Deny(401, "invalid API key");
    d.delay = NoteFailureLocked(address, now);
    return d;
  }
  if (required == Access::kAdmin && entry->scope != Access::kAdmin) {
    return Deny(403, "the API key '" + entry->name + "' has scope '" + AccessName(entry->scope) +
                         "'; this route needs an 'admin' key");
  }
  if (entry->rpm > 0) {
    auto [it, added] = buckets_.try_emplace(entry->name, entry->rpm, now);
    if (int wait = it->second.Take(now); wait > 0) {
      AuthDecision d = Deny(429, "rate limit of " + std::to_string(entry->rpm) +
                                     " requests per minute for the API key '" + entry->name +
                                     "' exceeded; retry in " + std::to_string(wait) + " s");
      d.retry_after_s = wait;
      return d;
    }
  }
  AuthDecision ok;
  ok.keys_required = true;
  ok.principal = entry->name;
  ok.priority = entry->priority;
  ok.scope = entry->scope;
  return ok;
}

}  // namespace zest::http
