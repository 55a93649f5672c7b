#include "models/model_file_safety.h"

#include <sys/stat.h>

#include <cstdio>

namespace zest::models {
namespace fs = std::filesystem;

namespace {

Status CheckPath(const ModelEntry& model, const fs::path& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || (st.st_mode & S_IWOTH) == 0) return Status::Ok();
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return Internal("refusing to load model '" + model.name + "': the " + what + " " + path.string() +
                  " is world-writable (mode " + mode +
                  "), so any local user could replace the model; run: chmod o-w " + path.string());
}

}  // namespace

Status CheckModelFilesSafe(const ModelEntry& model) {
  return CheckModelFilesSafe(model, {model.path, model.mmproj, model.vocoder});
}

Status CheckModelFilesSafe(const ModelEntry& model, const std::vector<fs::path>& files) {
  for (const fs::path& file : files) {
    if (file.empty()) continue;
    std::error_code ec;
    fs::path real = fs::canonical(file, ec);
    ZEST_RETURN_IF_ERROR(CheckPath(model, file, "file"));
    ZEST_RETURN_IF_ERROR(CheckPath(model, file.parent_path(), "directory"));
    if (!ec) ZEST_RETURN_IF_ERROR(CheckPath(model, real.parent_path(), "directory"));
  }
  return Status::Ok();
}

}  // namespace zest::models
