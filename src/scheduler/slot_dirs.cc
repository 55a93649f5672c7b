#include "scheduler/slot_dirs.h"

#include "scheduler/engine_starter.h"

namespace zest::scheduler {

namespace fs = std::filesystem;

fs::path SlotDirs::Saved(const std::string& model) const {
  return slot_dir_.empty() ? fs::path() : slot_dir_ / SafeFileName(model);
}

fs::path SlotDirs::ForEngine(const std::string& model, bool replica) const {
  // A replica's slots are not kept: the first instance's conversations are.
  fs::path dir = replica ? fs::path() : Saved(model);
  // The prefill/decode split hands slots over through the handoff directory.
  return dir.empty() ? handoff_dir_ : dir;
}

}  // namespace zest::scheduler
