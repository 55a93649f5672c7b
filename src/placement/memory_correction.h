// Learned memory correction: after each load zest compares the CPU memory
// the ledger predicted (memory_ledger.h) with the engine's measured
// process-tree RSS, and keeps, per model, the ratio measured / predicted,
// smoothed over loads. The next placement of that model scales its CPU
// prediction by it (Factor()), so a model the ledger under-counts gets the
// room it really takes.
//
// Keyed by model name, with the identity of its file (path, size, mtime): a
// model re-pulled as a different file starts from nothing, its old ratio
// describes another file. One entry per model; kept in a small JSON file
// under ZEST_HOME so what was learned survives a restart.
//
// Each entry keeps two ratios, by the kind of placement (CorrectionScope):
// on the CPU alone the RSS measures what the ledger's CPU figure counts;
// with layers on a GPU the same RSS also holds driver mappings and host
// staging buffers, against a CPU figure that is only the embeddings and the
// engine. A ratio learned there (often the clamp, 2) would double the
// reservation of the same model on the CPU, so neither scales the other.
//
// MemoryCorrections is the only part of placement that does I/O (its one
// file, read at construction, written atomically after each Record).
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/mutex.h"
#include "core/result.h"

namespace zest::placement {

// One measurement never moves the ratio outside this range: a wild RSS read
// (a process caught mid-exit, another tool's pages in the tree) must not
// double or halve every later prediction.
inline constexpr double kMinCorrection = 0.5;
inline constexpr double kMaxCorrection = 2.0;
// Weight of a new load in the smoothed ratio after the first (the first
// load's ratio is taken as it is).
inline constexpr double kCorrectionSmoothing = 0.3;

enum class CorrectionScope { kCpuOnly, kWithGpus };
const char* CorrectionScopeName(CorrectionScope scope);  // "cpu_only", "with_gpus"

struct MemoryCorrection {
  double ratio = 1.0;  // measured / predicted CPU bytes, smoothed, clamped
  int loads = 0;       // how many loads it was learned from

  // The factor placement applies to the CPU prediction: the ratio, but never
  // below 1. Only ever to make admission safer: RSS right after a load
  // under-counts what the engine will hold (mmap'd weights count only the
  // pages touched so far: MoE experts not yet routed to, weights the warm-up
  // did not read, all arrive later), so measured < predicted is no evidence
  // that the model needs less, and shrinking the reservation would let a
  // later load push the machine into swap. Measured > predicted is memory the
  // engine really holds that the ledger missed (allocator slack, backend
  // host buffers): the next load reserves it. A user sees a model refused a
  // little earlier, never one admitted into an OOM.
  double Factor() const;
  bool operator==(const MemoryCorrection&) const = default;
};

// What is known for one model file, by scope: placement picks the one of
// the layout it weighs.
struct LearnedCorrections {
  std::optional<MemoryCorrection> cpu_only;
  std::optional<MemoryCorrection> with_gpus;
  const std::optional<MemoryCorrection>& For(CorrectionScope scope) const {
    return scope == CorrectionScope::kCpuOnly ? cpu_only : with_gpus;
  }
};

// The identity of a model file: "path|size|mtime". A different file under
// the same model name (re-pulled, replaced in the models directory) has
// another.
std::string ModelFileIdentity(const std::filesystem::path& path, uint64_t size, int64_t mtime);

// The ratio after folding `measured` / `predicted` into `previous` (none:
// the first load). predicted = 0 leaves it as it was.
MemoryCorrection FoldMeasurement(const std::optional<MemoryCorrection>& previous,
                                 uint64_t predicted, uint64_t measured);

class MemoryCorrections {
 public:
  // Reads `file` when it exists. A missing file is an empty store; an
  // unreadable or malformed one is logged and treated as empty (it is a
  // cache of measurements, not configuration: the next load rewrites it).
  // An empty path keeps everything in memory (tests, a pool without a home).
  explicit MemoryCorrections(std::filesystem::path file);

  // What was learned for `model` with this file in `scope`; none when
  // nothing was, or when it was learned from another file.
  std::optional<MemoryCorrection> Get(const std::string& model, const std::string& file_identity,
                                      CorrectionScope scope) const;

  // Folds one load's measurement in and writes the file. Returns the new
  // correction; the error (the file could not be written) still leaves the
  // new value in memory. Another file than the one known for `model` drops
  // what was learned for the old one, in both scopes.
  Result<MemoryCorrection> Record(const std::string& model, const std::string& file_identity,
                                  CorrectionScope scope, uint64_t predicted, uint64_t measured);

 private:
  struct Entry {
    std::string file_identity;
    std::map<CorrectionScope, MemoryCorrection> by_scope;
  };
  Status Save() const REQUIRES(mu_);

  const std::filesystem::path file_;
  mutable Mutex mu_;
  std::map<std::string, Entry> entries_ GUARDED_BY(mu_);  // by model name
};

}  // namespace zest::placement
