// ModelRegistry: the models zest can serve, by name. Two sources for now:
// every *.gguf in the models directory (named by its file stem) and models
// registered with `zest add NAME PATH` (kept in a JSON file in $ZEST_HOME).
// A registered name wins over a scanned one.
//
// Listing rescans the directory each time (cheap), and GGUF headers are
// cached by path, size and mtime. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"

namespace zest::models {

struct ModelEntry {
  std::string name;
  std::filesystem::path path;
  std::string source;   // "models_dir" or "user"
  int64_t created = 0;  // file mtime, seconds since the epoch
  ModelInfo info;       // valid when `error` is empty
  std::string error;    // why the header could not be read, if so
};

class ModelRegistry {
 public:
  ModelRegistry(std::filesystem::path models_dir, std::filesystem::path user_models_file);

  // All models, sorted by name.
  std::vector<ModelEntry> List();
  // kNotFound with the available names when `name` is unknown.
  Result<ModelEntry> Find(const std::string& name);
  // Registers `path` (must be a readable GGUF) under `name` and persists the
  // list atomically. Replaces an earlier registration of the same name.
  Status Add(const std::string& name, const std::filesystem::path& path);

  // Names are 1-128 chars of [A-Za-z0-9._:/-], not starting with '.' or '/'.
  static bool ValidName(const std::string& name);

 private:
  struct CachedInfo {
    uint64_t size = 0;
    int64_t mtime = 0;
    ModelInfo info;
    std::string error;
  };
  ModelEntry Describe(const std::string& name, const std::filesystem::path& path,
                      const std::string& source);
  std::map<std::string, std::filesystem::path> LoadUserModels();
  Status SaveUserModels(const std::map<std::string, std::filesystem::path>& models);

  const std::filesystem::path models_dir_;
  const std::filesystem::path user_models_file_;
  std::mutex mu_;
  std::map<std::string, CachedInfo> cache_;  // by path; guarded by mu_
};

}  // namespace zest::models
