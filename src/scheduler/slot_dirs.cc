#include "scheduler/slot_dirs.h"

#include "scheduler/engine_starter.h"

namespace zest::scheduler {

namespace fs = std::filesystem;

fs::path SlotDirs::Saved(const std::string& model) const {
  if (slot_dir_.empty()) return {};
  fs::path dir = slot_dir_ / SafeFileName(model);
  // A directory named the old way moves to the new name on first use.
  // (Names that shared it then still share what is in it now, once.)
  fs::path old = slot_dir_ / OldSafeFileName(model);
  std::error_code ec;
  if (old != dir && !fs::exists(dir, ec) && fs::is_directory(fs::symlink_status(old, ec))) {
    fs::rename(old, dir, ec);
  }
  return dir;
}

fs::path SlotDirs::ForEngine(const std::string& model, bool replica) const {
  // A replica's slots are not kept: the first instance's conversations are.
  fs::path dir = replica ? fs::path() : Saved(model);
  // The prefill/decode split hands slots over through the handoff directory.
  return dir.empty() ? handoff_dir_ : dir;
}

}  // namespace zest::scheduler
