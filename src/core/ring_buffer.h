// LineRing: the last N lines of a text stream (an engine's stdout/stderr),
// kept so errors and `zest logs` can show what an engine said last.
// Thread-safe: one writer and any number of readers may call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/mutex.h"

namespace zest {

class LineRing {
 public:
  explicit LineRing(std::size_t capacity) : capacity_(capacity) {}

  // Appends raw bytes; complete lines are stored, a trailing partial line is
  // held until its newline arrives (or Flush is called).
  void Append(std::string_view bytes);
  // Stores a held partial line, e.g. when the stream ends.
  void Flush();
  // The most recent `n` complete lines, oldest first.
  std::vector<std::string> Tail(std::size_t n) const;
  // Lines are numbered from 0 in the order they were stored. Returns the
  // held lines numbered `from` and later, and sets `*next` to the number the
  // next line will get (pass it as `from` to follow the stream). Lines that
  // already fell out of the ring are skipped.
  std::vector<std::string> Since(uint64_t from, uint64_t* next) const;

 private:
  void PushLocked(std::string line) REQUIRES(mu_);

  const std::size_t capacity_;
  mutable Mutex mu_;
  std::deque<std::string> lines_ GUARDED_BY(mu_);
  std::string partial_ GUARDED_BY(mu_);
  uint64_t stored_ GUARDED_BY(mu_) = 0;  // lines ever stored
};

}  // namespace zest
