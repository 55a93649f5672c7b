// Authenticator: decides whether a request's API key may use a route.
// Keys come from `--api-key`/ZEST_API_KEY (one key, admin scope, no rate
// limit) and the keys file (see api_keys.h), which is re-read when it
// changes on disk (checked at most once a second) or on Reload().
//
// With no key configured at all, every request is allowed (the loopback
// default; the server refuses a non-loopback bind in that state unless told
// otherwise). Once any key exists, every route but kPublic ones needs one,
// for the rest of the process: removing the last key does not open the
// server again, it refuses everything (fails closed) until a key is added.
//
// Wrong keys are slowed down per client (http/client_group.h: loopback is
// one, an IPv6 /64 one): past a burst, each further failure is answered
// only after a delay, so guessing a weak key costs time. The clients
// remembered are bounded (the least recent out, in constant time).
//
// Keys are compared as SHA-256 digests with CRYPTO_memcmp against every
// stored key, so timing reveals neither the key nor which entry matched.
// Thread-safe.
#pragma once

#include <chrono>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "http/api_keys.h"
#include "http/request.h"
#include "http/token_bucket.h"

namespace zest::http {

struct AuthOptions {
  std::string single_key;           // empty = none
  std::filesystem::path keys_file;  // empty = none
};

struct AuthDecision {
  int status = 0;                 // 0: allowed; else 401, 403 or 429
  std::string message;            // why not, for the error body
  int retry_after_s = 0;          // with 429
  std::string principal;          // the key's name ("" without auth)
  std::string priority;           // the key's priority ("" = none)
  Access scope = Access::kAdmin;  // the key's scope; kAdmin where no keys are needed
  // Requests must present keys (a key exists, or existed). On a public
  // route a valid key is still named (principal, scope), never required.
  bool keys_required = false;
  // How long to hold the answer back (wrong keys from an address past its
  // allowance; on a public route the request is still served, late).
  std::chrono::milliseconds delay{0};
  bool allowed() const { return status == 0; }
};

class Authenticator {
 public:
  using Clock = std::chrono::steady_clock;

  // Errors when the keys file is malformed or not private.
  static Result<std::unique_ptr<Authenticator>> Create(AuthOptions options);

  // Whether requests must present a key: a key exists, or existed since
  // this process started.
  bool enabled() const;
  // Checks the key in `headers` (Authorization: Bearer, else x-api-key)
  // against `required`, and takes a token from the key's rate limit. A
  // public route is always allowed; a valid key sent to one is named in the
  // decision (so a page can ask what its key may do); a wrong one is
  // counted against the address and slowed down like on any route.
  // `address` is the client's, for slowing down wrong keys.
  AuthDecision Check(const Headers& headers, Access required, std::string_view address = {});
  // Re-reads the keys file now; on error the previous keys stay in force.
  Status Reload();

 private:
  struct Entry {
    std::string name;
    std::string digest;  // 32 raw bytes
    Access scope = Access::kInference;
    std::string priority;
    int rpm = 0;
  };

  explicit Authenticator(AuthOptions options) : options_(std::move(options)) {}
  Status LoadLocked() REQUIRES(mutex_);
  void MaybeReloadLocked(Clock::time_point now) REQUIRES(mutex_);
  const Entry* MatchLocked(std::string_view key) const REQUIRES(mutex_);
  // The decision for a public route: allowed, naming `key`'s owner if
  // valid; a wrong key counts against `address` as anywhere else.
  AuthDecision IdentifyLocked(std::string_view key, std::string_view address, Clock::time_point now)
      REQUIRES(mutex_);
  // Counts a wrong key from `address`; the delay its refusal gets.
  std::chrono::milliseconds NoteFailureLocked(std::string_view address, Clock::time_point now)
      REQUIRES(mutex_);

  struct Failures {
    TokenBucket allowance;
    std::list<std::string>::iterator order;  // its place in failure_order_
  };

  const AuthOptions options_;
  mutable Mutex mutex_;
  std::vector<Entry> entries_ GUARDED_BY(mutex_);
  std::map<std::string, TokenBucket> buckets_ GUARDED_BY(mutex_);  // by key name
  // Wrong keys by client (client_group.h), bounded; the most recent first.
  std::unordered_map<std::string, Failures> failures_ GUARDED_BY(mutex_);
  std::list<std::string> failure_order_ GUARDED_BY(mutex_);
  bool required_ GUARDED_BY(mutex_) = false;  // a key has existed; never reset
  std::filesystem::file_time_type file_mtime_ GUARDED_BY(mutex_){};
  bool file_present_ GUARDED_BY(mutex_) = false;
  Clock::time_point last_check_ GUARDED_BY(mutex_){};
};

}  // namespace zest::http
