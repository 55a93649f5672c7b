// Mutex and MutexLock: std::mutex and std::lock_guard as the thread-safety
// analysis sees them (thread_annotations.h). libstdc++'s std::mutex carries
// no annotations, so GUARDED_BY(a std::mutex) would check nothing. Use
// these for every mutex whose members say GUARDED_BY.
#pragma once

#include <condition_variable>
#include <mutex>

#include "core/thread_annotations.h"

namespace zest {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mutex_.lock(); }
  void unlock() RELEASE() { mutex_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mutex_.try_lock(); }

 private:
  std::mutex mutex_;
};

// Holds `mutex` for its scope. It is BasicLockable itself (lock/unlock), so
// a std::condition_variable_any can wait on it.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : mutex_(mutex) { mutex_.lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mutex_.unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // For condition variables, which unlock while they wait.
  void lock() ACQUIRE() {
    mutex_.lock();
    held_ = true;
  }
  void unlock() RELEASE() {
    held_ = false;
    mutex_.unlock();
  }

 private:
  Mutex& mutex_;
  bool held_ = true;
};

// A condition variable for Mutex (waits on a MutexLock).
using CondVar = std::condition_variable_any;

}  // namespace zest
