#include "http/connection_registry.h"

#include <algorithm>
#include <vector>

namespace zest::http {

int ConnectionRegistry::PerAddressLimit() const {
  int limit = limits_.per_address;
  if (limits_.total > 0) {
    int share = limits_.total - limits_.total / 4;  // a quarter stays for other addresses
    if (limit <= 0 || limit > share) limit = share;
  }
  return limit;
}

int ConnectionRegistry::StreamsLimit() const {
  int limit = limits_.streams_per_address;
  if (limits_.total > 0) {
    const int half = std::max(limits_.total / 2, 1);  // the other half stays for other clients
    if (limit <= 0 || limit > half) limit = half;
  }
  return limit;
}

int ConnectionRegistry::KeyBusyLimit() const {
  return limits_.total > 0 ? std::max(limits_.total / 2, 1) : 0;
}

std::uint64_t ConnectionRegistry::VictimLocked(const std::string* address) const {
  std::string crowded;
  if (address == nullptr) {
    int most = 0;
    for (const auto& [addr, count] : per_address_) {
      if (count > most) {
        most = count;
        crowded = addr;
      }
    }
    address = &crowded;
  }
  std::uint64_t victim = 0;
  Clock::time_point oldest = Clock::time_point::max();
  for (const auto& [id, live] : live_) {
    if (live.busy || live.evicted || live.address != *address) continue;
    if (live.idle_since < oldest) {
      oldest = live.idle_since;
      victim = id;
    }
  }
  return victim;
}

void ConnectionRegistry::EvictLocked(std::uint64_t id, std::vector<std::function<void()>>& aborts) {
  Live& live = live_.at(id);
  live.evicted = true;
  --counted_;
  if (--per_address_[live.address] <= 0) per_address_.erase(live.address);
  aborts.push_back(live.abort);
}

ConnectionRegistry::AddResult ConnectionRegistry::Add(const std::string& address,
                                                      std::function<void()> abort,
                                                      std::uint64_t* id) {
  std::vector<std::function<void()>> aborts;  // called after the lock is released
  AddResult result = AddResult::kAdded;
  {
    MutexLock lock(mutex_);
    if (closed_) return AddResult::kStopping;
    const int per_address = PerAddressLimit();
    auto count = per_address_.find(address);
    if (per_address > 0 && count != per_address_.end() && count->second >= per_address) {
      std::uint64_t victim = VictimLocked(&address);
      if (victim == 0) return AddResult::kTooMany;
      EvictLocked(victim, aborts);
    }
    if (limits_.total > 0 && counted_ >= limits_.total) {
      std::uint64_t victim = VictimLocked(nullptr);
      if (victim == 0) {
        result = AddResult::kTooMany;
      } else {
        EvictLocked(victim, aborts);
      }
    }
    if (result == AddResult::kAdded) {
      *id = ++next_id_;
      ++counted_;
      ++per_address_[address];
      live_.emplace(*id, Live{address, std::move(abort), false, false, false, now_(), ""});
    }
  }
  for (const auto& close : aborts) close();
  return result;
}

namespace {

void Decrement(std::unordered_map<std::string, int>& counts, const std::string& address) {
  auto count = counts.find(address);
  if (count != counts.end() && --count->second <= 0) counts.erase(count);
}

}  // namespace

void ConnectionRegistry::ReleaseKeyLocked(Live& live) {
  if (live.key.empty()) return;
  Decrement(busy_keys_, live.key);
  live.key.clear();
}

void ConnectionRegistry::SetBusy(std::uint64_t id, bool busy) {
  MutexLock lock(mutex_);
  auto it = live_.find(id);
  if (it == live_.end()) return;
  it->second.busy = busy;
  if (!busy) {
    ReleaseKeyLocked(it->second);
    it->second.idle_since = now_();
  }
}

bool ConnectionRegistry::SetBusyFor(std::uint64_t id, const std::string& key) {
  MutexLock lock(mutex_);
  auto it = live_.find(id);
  if (it == live_.end()) return true;
  ReleaseKeyLocked(it->second);
  auto held = busy_keys_.find(key);
  const int limit = KeyBusyLimit();
  if (limit > 0 && held != busy_keys_.end() && held->second >= limit) return false;
  ++busy_keys_[key];
  it->second.key = key;
  it->second.busy = true;
  return true;
}

bool ConnectionRegistry::SetStreaming(std::uint64_t id, bool streaming) {
  MutexLock lock(mutex_);
  auto it = live_.find(id);
  if (it == live_.end() || it->second.evicted || it->second.streaming == streaming) return true;
  Live& live = it->second;
  if (streaming) {
    auto streams = streams_.find(live.address);
    const int limit = StreamsLimit();
    if (limit > 0 && streams != streams_.end() && streams->second >= limit) return false;
    // Streams never take the last quarter of the total: plain requests
    // (a health check) always find room, whoever holds the streams.
    if (limits_.total > 0 && all_streams_ >= limits_.total - limits_.total / 4) return false;
    Decrement(per_address_, live.address);
    ++streams_[live.address];
    ++all_streams_;
  } else {
    Decrement(streams_, live.address);
    --all_streams_;
    ++per_address_[live.address];
  }
  live.streaming = streaming;
  return true;
}

void ConnectionRegistry::Remove(std::uint64_t id) {
  MutexLock lock(mutex_);
  auto it = live_.find(id);
  if (it == live_.end()) return;
  if (!it->second.evicted) {
    --counted_;
    Decrement(it->second.streaming ? streams_ : per_address_, it->second.address);
    if (it->second.streaming) --all_streams_;
  }
  ReleaseKeyLocked(it->second);
  live_.erase(it);
}

void ConnectionRegistry::AbortAll() {
  std::vector<std::function<void()>> aborts;
  {
    MutexLock lock(mutex_);
    closed_ = true;
    for (const auto& [id, live] : live_) aborts.push_back(live.abort);
  }
  for (const auto& close : aborts) close();
}

int ConnectionRegistry::BusyFor(const std::string& key) const {
  MutexLock lock(mutex_);
  auto it = busy_keys_.find(key);
  return it == busy_keys_.end() ? 0 : it->second;
}

int ConnectionRegistry::CountFrom(const std::string& address) const {
  MutexLock lock(mutex_);
  auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

int ConnectionRegistry::StreamsFrom(const std::string& address) const {
  MutexLock lock(mutex_);
  auto it = streams_.find(address);
  return it == streams_.end() ? 0 : it->second;
}

}  // namespace zest::http
