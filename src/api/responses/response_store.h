// ResponseStore: the responses a client asked zest to keep (`store`, true
// by default as in OpenAI's API), for previous_response_id and
// GET/DELETE /v1/responses/{id}. One file per response, written
// atomically (mode 0600: they hold conversations), in a directory of the
// API key that made it, $ZEST_HOME/responses/key-NAME/ (local/ without
// keys, where every local client is the same owner); only that key sees it.
// Bounded per key and in all: a key keeps at most `max_count_per_key` files
// and `max_bytes_per_key`, its oldest going first; beyond `max_count` or
// `max_bytes` in all, the oldest of the key holding the most bytes goes
// first, so no key can push out another's; any older than `max_age` goes.
// Thread-safe.
//
// Writes happen behind: Put keeps the response in memory and a thread of
// the store's own writes the file (with fsync), so the request that stored
// it does not wait on the disk, nor do others on the I/O thread (measured:
// bench/response_store.mjs; each write and fsync took some 1.5 ms of the
// I/O thread here). Get and Delete see a response from the moment Put
// returns: the client may use previous_response_id at once.
#pragma once

#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/mutex.h"
#include "core/result.h"

namespace zest::api::responses {

// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct StoredResponse {
  std::string owner;           // the key's name; "" without keys
  nlohmann::json response;     // the response object as the client got it
  nlohmann::json input_items;  // this request's input, as items with ids
  // The whole conversation up to and including this response, as OpenAI
  // chat messages (without instructions), for the next turn.
  nlohmann::json messages;
  // The id of the first response of its previous_response_id chain (its
  // own when it continues none): the conversation's session.
  std::string chain;
};

class ResponseStore {
 public:
  struct Limits {
    std::size_t max_count = 10000;
    uint64_t max_bytes = 512ull << 20;
    std::size_t max_count_per_key = 2500;
    uint64_t max_bytes_per_key = 128ull << 20;
    std::chrono::seconds max_age = std::chrono::hours(24 * 30);
  };
  ResponseStore(std::filesystem::path dir, Limits limits);

  Status Put(const std::string& id, const StoredResponse& record);
  // kNotFound when there is none with `id`, or another key's (the same
  // answer: ids of other keys are not revealed).
  Result<StoredResponse> Get(const std::string& id, const std::string& owner) const;
  Status Delete(const std::string& id, const std::string& owner);
  // Waits until every response Put so far is on disk (tests; the
  // destructor does the same).
  void Flush();
  ~ResponseStore();

 private:
  // NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
  struct Pending {
    StoredResponse record;
    uint64_t put = 0;  // which Put: a later one replaces it
  };
  // On the writer thread: `id`'s file from its pending record `put`.
  void Write(const std::string& id, uint64_t put);
  // The file for `owner`'s `id`, or kNotFound for an id or owner that is
  // not one of ours (ids [A-Za-z0-9_-], owners as key names: no paths).
  Result<std::filesystem::path> PathFor(const std::string& id, const std::string& owner) const;
  void Prune() REQUIRES(mu_);

  const std::filesystem::path dir_;
  const Limits limits_;
  mutable Mutex mu_;
  uint64_t puts_ GUARDED_BY(mu_) = 0;               // the directory is pruned every few puts...
  uint64_t bytes_since_prune_ GUARDED_BY(mu_) = 0;  // ...or after a few large ones
  std::map<std::string, Pending> pending_ GUARDED_BY(mu_);  // accepted, not yet on disk
  boost::asio::thread_pool writer_{1};  // one thread: files are written in Put order
};

}  // namespace zest::api::responses
