#include "placement/memory_correction.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config/secure_file.h"

namespace zest::placement {
namespace {

using nlohmann::json;

double Clamp(double ratio) { return std::clamp(ratio, kMinCorrection, kMaxCorrection); }

}  // namespace

double MemoryCorrection::Factor() const { return std::max(1.0, ratio); }

std::string ModelFileIdentity(const std::filesystem::path& path, uint64_t size, int64_t mtime) {
  return path.string() + "|" + std::to_string(size) + "|" + std::to_string(mtime);
}

MemoryCorrection FoldMeasurement(const std::optional<MemoryCorrection>& previous,
                                 uint64_t predicted, uint64_t measured) {
  if (predicted == 0) return previous.value_or(MemoryCorrection{});
  const double observed = Clamp(static_cast<double>(measured) / static_cast<double>(predicted));
  if (!previous || previous->loads <= 0) return {observed, 1};
  MemoryCorrection next = *previous;
  next.ratio = Clamp(next.ratio + kCorrectionSmoothing * (observed - next.ratio));
  next.loads += 1;
  return next;
}

const char* CorrectionScopeName(CorrectionScope scope) {
  return scope == CorrectionScope::kCpuOnly ? "cpu_only" : "with_gpus";
}

MemoryCorrections::MemoryCorrections(std::filesystem::path file) : file_(std::move(file)) {
  if (file_.empty()) return;
  std::ifstream in(file_);
  if (!in) return;  // nothing learned yet
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  const json* models = doc.is_object() ? &doc["models"] : nullptr;
  if (models == nullptr || !models->is_object()) {
    spdlog::warn("ignoring {}: not a memory correction file (it is rewritten at the next load)",
                 file_.string());
    return;
  }
  for (const auto& [name, entry] : models->items()) {
    if (!entry.is_object() || !entry.value("file", json()).is_string()) {
      spdlog::warn("ignoring the memory correction of '{}' in {}: malformed", name, file_.string());
      continue;
    }
    Entry loaded{entry["file"].get<std::string>(), {}};
    for (CorrectionScope scope : {CorrectionScope::kCpuOnly, CorrectionScope::kWithGpus}) {
      const json c = entry.value(CorrectionScopeName(scope), json());
      if (c.is_null()) continue;
      if (!c.is_object() || !c.value("ratio", json()).is_number() ||
          !c.value("loads", json()).is_number_integer()) {
        spdlog::warn("ignoring the memory correction of '{}' ({}) in {}: malformed", name,
                     CorrectionScopeName(scope), file_.string());
        continue;
      }
      // Clamped again: the file is ours, but a hand edit must not make
      // placement reserve ten times the model.
      loaded.by_scope[scope] = {Clamp(c["ratio"].get<double>()),
                                std::max(c["loads"].get<int>(), 0)};
    }
    entries_[name] = std::move(loaded);
  }
}

std::optional<MemoryCorrection> MemoryCorrections::Get(const std::string& model,
                                                       const std::string& file_identity,
                                                       CorrectionScope scope) const {
  MutexLock lock(mu_);
  auto it = entries_.find(model);
  if (it == entries_.end() || it->second.file_identity != file_identity) return std::nullopt;
  auto learned = it->second.by_scope.find(scope);
  if (learned == it->second.by_scope.end()) return std::nullopt;
  return learned->second;
}

Result<MemoryCorrection> MemoryCorrections::Record(const std::string& model,
                                                   const std::string& file_identity,
                                                   CorrectionScope scope, uint64_t predicted,
                                                   uint64_t measured) {
  MutexLock lock(mu_);
  Entry& entry = entries_[model];
  if (entry.file_identity != file_identity) entry = {file_identity, {}};
  std::optional<MemoryCorrection> previous;
  if (auto it = entry.by_scope.find(scope); it != entry.by_scope.end()) previous = it->second;
  const MemoryCorrection next = FoldMeasurement(previous, predicted, measured);
  entry.by_scope[scope] = next;
  Status saved = Save();
  if (!saved.ok()) return saved;
  return next;
}

Status MemoryCorrections::Save() const {
  if (file_.empty()) return Status::Ok();
  json models = json::object();
  for (const auto& [name, entry] : entries_) {
    json e = {{"file", entry.file_identity}};
    for (const auto& [scope, c] : entry.by_scope) {
      e[CorrectionScopeName(scope)] = {{"ratio", c.ratio}, {"loads", c.loads}};
    }
    models[name] = std::move(e);
  }
  const json doc = {{"version", 1}, {"models", models}};
  return config::WriteFileAtomically(file_, doc.dump(2) + "\n", 0600);
}

}  // namespace zest::placement
