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
    if (!entry.is_object() || !entry.value("file", json()).is_string() ||
        !entry.value("ratio", json()).is_number() ||
        !entry.value("loads", json()).is_number_integer()) {
      spdlog::warn("ignoring the memory correction of '{}' in {}: malformed", name, file_.string());
      continue;
    }
    // Clamped again: the file is ours, but a hand edit must not make
    // placement reserve ten times the model.
    entries_[name] = {
        entry["file"].get<std::string>(),
        {Clamp(entry["ratio"].get<double>()), std::max(entry["loads"].get<int>(), 0)}};
  }
}

std::optional<MemoryCorrection> MemoryCorrections::Get(const std::string& model,
                                                       const std::string& file_identity) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(model);
  if (it == entries_.end() || it->second.file_identity != file_identity) return std::nullopt;
  return it->second.correction;
}

Result<MemoryCorrection> MemoryCorrections::Record(const std::string& model,
                                                   const std::string& file_identity,
                                                   uint64_t predicted, uint64_t measured) {
  std::lock_guard lock(mu_);
  std::optional<MemoryCorrection> previous;
  auto it = entries_.find(model);
  if (it != entries_.end() && it->second.file_identity == file_identity) {
    previous = it->second.correction;
  }
  const MemoryCorrection next = FoldMeasurement(previous, predicted, measured);
  entries_[model] = {file_identity, next};
  Status saved = Save();
  if (!saved.ok()) return saved;
  return next;
}

Status MemoryCorrections::Save() const {
  if (file_.empty()) return Status::Ok();
  json models = json::object();
  for (const auto& [name, entry] : entries_) {
    models[name] = {{"file", entry.file_identity},
                    {"ratio", entry.correction.ratio},
                    {"loads", entry.correction.loads}};
  }
  const json doc = {{"version", 1}, {"models", models}};
  return config::WriteFileAtomically(file_, doc.dump(2) + "\n", 0600);
}

}  // namespace zest::placement
