// ConnectionRegistry: the live connections of one server, counted per
// client address and in all, so that no client can lock the others out.
// Over a limit, room is made by closing the connection that has been idle
// longest (waiting for a request, its headers or its body; never one whose
// handler runs) of the address holding the most connections: slowloris
// sockets and idle keep-alives give way to new clients, even from the same
// address (on loopback every local process shares 127.0.0.1). A new
// connection is refused only when everything that could give way is busy.
// One address may hold at most three quarters of the total, so others
// always find room. Long-lived streams (an event stream, a log followed)
// are busy for as long as their client stays: they count against the
// total and a limit of streams per address of their own, not against the
// address's connections, so a client holding many streams cannot lock out
// the plain requests of its address (on loopback: every local process).
// One address holds at most half the total in streams, and streams in all
// at most three quarters: a health check always finds room. And one API
// key holds at most half the total busy (requests running or queued,
// streams), from however many addresses it comes: a key cannot fill the
// server with requests that wait (issue 52, MEDIUM 7).
//
// An "address" here is a client as http/client_group.h counts them (all of
// loopback one, an IPv6 /64 one): the caller passes ClientGroup's.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mutex.h"

namespace zest::http {

class ConnectionRegistry {
 public:
  using Clock = std::chrono::steady_clock;
  struct Limits {
    int per_address = 256;         // 0 = no limit
    int total = 1024;              // 0 = no limit
    int streams_per_address = 64;  // long-lived streams; 0 = no limit
  };
  enum class AddResult { kAdded, kStopping, kTooMany };

  // `now` tells the time that idle spans are measured with (tests pass a
  // clock of their own).
  explicit ConnectionRegistry(Limits limits, std::function<Clock::time_point()> now = Clock::now)
      : limits_(limits), now_(std::move(now)) {}

  // Registers a connection from `address` (idle until SetBusy) and sets
  // `*id`; `abort` closes it, from any thread, and must not call back into
  // the registry. kStopping once AbortAll() ran; kTooMany when no room could
  // be made (the caller drops the connection then).
  AddResult Add(const std::string& address, std::function<void()> abort, std::uint64_t* id);
  // Whether a handler is running on the connection (it may not be closed
  // to make room).
  void SetBusy(std::uint64_t id, bool busy);
  // SetBusy(id, true) for a request of API key `key`, counted against the
  // key's share (half the total); false, and nothing changes, when the key
  // already holds it. SetBusy(id, false) and Remove give it back.
  bool SetBusyFor(std::uint64_t id, const std::string& key);
  // Moves the connection to the long-lived streams of its address (true)
  // or back. False, and nothing changes, when the address already has its
  // limit of streams.
  bool SetStreaming(std::uint64_t id, bool streaming);
  void Remove(std::uint64_t id);
  // Aborts every live connection and refuses new ones; returns at once.
  void AbortAll();

  // Connections counted from `address` (those closed to make room are not,
  // nor its streams), and its long-lived streams.
  int CountFrom(const std::string& address) const;
  int StreamsFrom(const std::string& address) const;
  // Connections busy for `key`.
  int BusyFor(const std::string& key) const;

 private:
  struct Live {
    std::string address;
    std::function<void()> abort;
    bool busy = false;
    bool evicted = false;    // closed to make room; no longer counted
    bool streaming = false;  // counted in streams_, not per_address_
    Clock::time_point idle_since;
    std::string key;  // busy for this API key (SetBusyFor); empty: none
  };
  int PerAddressLimit() const;
  // Streams one address may hold: streams_per_address, at most half the total.
  int StreamsLimit() const;
  // Busy connections one key may hold: half the total.
  int KeyBusyLimit() const;
  void ReleaseKeyLocked(Live& live) REQUIRES(mutex_);
  // The idle connection to close for room: from `address` when given, else
  // from the address with the most connections. 0 when none.
  std::uint64_t VictimLocked(const std::string* address) const REQUIRES(mutex_);
  void EvictLocked(std::uint64_t id, std::vector<std::function<void()>>& aborts) REQUIRES(mutex_);

  const Limits limits_;
  const std::function<Clock::time_point()> now_;
  mutable Mutex mutex_;
  bool closed_ GUARDED_BY(mutex_) = false;
  std::uint64_t next_id_ GUARDED_BY(mutex_) = 0;
  int counted_ GUARDED_BY(mutex_) = 0;
  std::unordered_map<std::uint64_t, Live> live_ GUARDED_BY(mutex_);
  std::unordered_map<std::string, int> per_address_ GUARDED_BY(mutex_);
  std::unordered_map<std::string, int> streams_ GUARDED_BY(mutex_);
  int all_streams_ GUARDED_BY(mutex_) = 0;
  std::unordered_map<std::string, int> busy_keys_ GUARDED_BY(mutex_);
};

}  // namespace zest::http
