#include "models/model_registry.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

namespace zest::models {
namespace {

namespace fs = std::filesystem;

int64_t MtimeSeconds(const fs::path& path) {
  std::error_code ec;
  auto t = fs::last_write_time(path, ec);
  if (ec) return 0;
  auto sys = std::chrono::file_clock::to_sys(t);
  return std::chrono::duration_cast<std::chrono::seconds>(sys.time_since_epoch()).count();
}

}  // namespace

ModelRegistry::ModelRegistry(fs::path models_dir, fs::path user_models_file)
    : models_dir_(std::move(models_dir)), user_models_file_(std::move(user_models_file)) {}

bool ModelRegistry::ValidName(const std::string& name) {
  if (name.empty() || name.size() > 128 || name[0] == '.' || name[0] == '/') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == ':' || c == '/';
  });
}

std::vector<ModelEntry> ModelRegistry::List() {
  std::map<std::string, ModelEntry> by_name;
  std::error_code ec;
  for (auto it = fs::directory_iterator(models_dir_, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".gguf" || !it->is_regular_file(ec)) continue;
    std::string name = p.stem().string();
    if (!ValidName(name)) continue;
    by_name[name] = Describe(name, p, "models_dir");
  }
  for (const auto& [name, path] : LoadUserModels()) {
    by_name[name] = Describe(name, path, "user");
  }
  std::vector<ModelEntry> out;
  for (auto& [name, entry] : by_name) out.push_back(std::move(entry));
  return out;
}

Result<ModelEntry> ModelRegistry::Find(const std::string& name) {
  std::vector<ModelEntry> all = List();
  for (ModelEntry& e : all) {
    if (e.name == name) return std::move(e);
  }
  std::string names;
  for (const ModelEntry& e : all) names += (names.empty() ? "" : ", ") + e.name;
  return NotFound("model '" + name + "' not found" +
                  (names.empty() ? " (no models in " + models_dir_.string() + ")"
                                 : " (available: " + names + ")"));
}

Status ModelRegistry::Add(const std::string& name, const fs::path& path) {
  if (!ValidName(name)) return InvalidArgument("invalid model name '" + name + "'");
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec || !fs::is_regular_file(absolute, ec)) {
    return InvalidArgument("no such file: " + path.string());
  }
  Result<GgufFile> gguf = ReadGguf(absolute);
  if (!gguf.ok()) return InvalidArgument(path.string() + ": " + gguf.status().message());
  std::map<std::string, fs::path> models = LoadUserModels();
  models[name] = absolute;
  return SaveUserModels(models);
}

ModelEntry ModelRegistry::Describe(const std::string& name, const fs::path& path,
                                   const std::string& source) {
  ModelEntry entry{name, path, source, MtimeSeconds(path), {}, {}};
  std::error_code ec;
  uint64_t size = fs::file_size(path, ec);
  if (ec) {
    entry.error = "cannot read " + path.string() + ": " + ec.message();
    return entry;
  }
  std::lock_guard lock(mu_);
  CachedInfo& cached = cache_[path.string()];
  if (cached.size != size || cached.mtime != entry.created ||
      (cached.info.architecture.empty() && cached.error.empty())) {
    Result<GgufFile> gguf = ReadGguf(path);
    cached = {size, entry.created, gguf.ok() ? models::Describe(*gguf) : ModelInfo{},
              gguf.ok() ? "" : gguf.status().message()};
  }
  entry.info = cached.info;
  entry.error = cached.error;
  return entry;
}

std::map<std::string, fs::path> ModelRegistry::LoadUserModels() {
  std::map<std::string, fs::path> models;
  std::ifstream in(user_models_file_);
  if (!in) return models;
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    spdlog::warn("ignoring malformed {}", user_models_file_.string());
    return models;
  }
  for (const auto& [name, path] : doc.items()) {
    if (path.is_string() && ValidName(name)) models[name] = path.get<std::string>();
  }
  return models;
}

Status ModelRegistry::SaveUserModels(const std::map<std::string, fs::path>& models) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [name, path] : models) doc[name] = path.string();
  std::error_code ec;
  fs::create_directories(user_models_file_.parent_path(), ec);
  fs::path tmp = user_models_file_;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << doc.dump(2) << "\n";
    if (!out.flush()) return IoError("cannot write " + tmp.string());
  }
  fs::rename(tmp, user_models_file_, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return IoError("cannot write " + user_models_file_.string() + ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace zest::models
