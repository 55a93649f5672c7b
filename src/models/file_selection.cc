// SelectFiles (declared in pull_spec.h): which of a repo's files one pull
// downloads. Kept apart from spec parsing: this is the quantization policy.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/strings.h"
#include "models/pull_spec.h"

namespace zest::models {
namespace {

bool IsGguf(std::string_view path) { return AsciiUpper(path).ends_with(".GGUF"); }

// One model inside a repo: a single file, or all shards of one.
struct Group {
  std::string key;  // the file path, or "base#count" for a shard set
  std::string label;
  std::vector<HubFile> files;
  uint64_t total = 0;
  int shard_count = 0;
};

std::string GroupKey(const std::string& path) {
  auto shard = ParseShard(path);
  return shard ? shard->base + "#" + std::to_string(shard->count) : path;
}

std::vector<Group> GroupModels(const std::vector<HubFile>& files) {
  std::map<std::string, Group> groups;
  for (const HubFile& f : files) {
    if (!IsModelFile(f.path) || IsMmproj(f.path)) continue;
    Group& g = groups[GroupKey(f.path)];
    g.key = GroupKey(f.path);
    g.label = ModelLabel(f.path);
    g.files.push_back(f);
    g.total += f.size;
    auto shard = ParseShard(f.path);
    g.shard_count = shard ? shard->count : 0;
  }
  std::vector<Group> out;
  for (auto& [key, g] : groups) {
    std::sort(g.files.begin(), g.files.end(),
              [](const HubFile& a, const HubFile& b) { return a.path < b.path; });
    out.push_back(std::move(g));
  }
  return out;
}

int LabelBits(std::string_view label) {
  if (label.starts_with("UD-")) label.remove_prefix(3);
  if (label.starts_with("MXFP4")) return 4;
  if (label == "F16" || label == "BF16") return 16;
  if (label == "F32") return 32;
  std::size_t q = label.find('Q');
  if (q == std::string_view::npos || q + 1 >= label.size()) return 0;
  return label[q + 1] - '0';
}

// No Q4_K_M: for speech models (whisper.cpp's repo holds every size),
// "base" (multilingual, 148 MB), else the smallest; for GGUF the smallest
// download of at least 4 bits (quality holds up), else the largest of what
// is left.
const Group* FallbackGroup(const std::vector<Group>& groups) {
  const Group* best = nullptr;
  if (IsSpeechModelFile(groups.front().key)) {
    for (const Group& g : groups) {
      if (g.label == kDefaultSpeechModel) return &g;
      if (best == nullptr || g.total < best->total) best = &g;
    }
    return best;
  }
  for (const Group& g : groups) {
    if (LabelBits(g.label) >= 4 && (best == nullptr || g.total < best->total)) best = &g;
  }
  if (best != nullptr) return best;
  for (const Group& g : groups) {
    if (best == nullptr || g.total > best->total) best = &g;
  }
  return best;
}

std::string AvailableLabels(const std::vector<Group>& groups) {
  std::set<std::string> labels;
  for (const Group& g : groups) labels.insert(g.label.empty() ? g.files.front().path : g.label);
  std::string out;
  for (const std::string& l : labels) out += (out.empty() ? "" : ", ") + l;
  return out.empty() ? "none" : out;
}

Status CheckShards(const Group& g) {
  if (g.shard_count == 0) return Status::Ok();
  bool complete = static_cast<int>(g.files.size()) == g.shard_count;
  for (std::size_t i = 0; complete && i < g.files.size(); ++i) {
    complete = ParseShard(g.files[i].path)->index == static_cast<int>(i) + 1;
  }
  if (complete) return Status::Ok();
  return InvalidArgument("the repo lists " + std::to_string(g.files.size()) + " of the " +
                         std::to_string(g.shard_count) + " shards of " + g.files.front().path);
}

Result<const Group*> ChooseGroup(const PullSpec& spec, const std::vector<Group>& groups) {
  if (!spec.file.empty()) {
    std::string key = GroupKey(spec.file);
    for (const Group& g : groups) {
      if (g.key == key) return &g;
    }
    return NotFound("'" + spec.file + "' is not a model file (GGUF or whisper.cpp) in " +
                    spec.repo);
  }
  std::string wanted = spec.quant.empty() ? std::string(kDefaultQuant) : spec.quant;
  for (const Group& g : groups) {
    if (SameQuant(g.label, wanted)) return &g;
  }
  if (spec.quant.empty() && !groups.empty()) return FallbackGroup(groups);
  if (groups.empty()) return NotFound(spec.repo + " has no GGUF or whisper.cpp model files");
  return NotFound(spec.repo + " has no " + wanted + " file; available: " + AvailableLabels(groups));
}

// The catalog's mmproj, else the repo's: F16 preferred (what llama.cpp's
// own converters produce), then any.
Result<std::vector<HubFile>> ChooseMmproj(const PullSpec& spec, const std::vector<HubFile>& files) {
  std::vector<HubFile> found;
  for (const HubFile& f : files) {
    if (!spec.mmproj.empty() ? f.path == spec.mmproj : IsGguf(f.path) && IsMmproj(f.path)) {
      found.push_back(f);
    }
  }
  if (!spec.mmproj.empty() && found.empty()) {
    return NotFound("the mmproj file '" + spec.mmproj + "' is not in " + spec.repo);
  }
  if (found.size() <= 1) return found;
  for (std::string_view pref : {"F16", "BF16", "F32", "Q8_0"}) {
    for (const HubFile& f : found) {
      if (QuantLabel(f.path) == pref) return std::vector<HubFile>{f};
    }
  }
  return std::vector<HubFile>{found.front()};
}

}  // namespace

Result<FileSelection> SelectFiles(const PullSpec& spec, const std::vector<HubFile>& files) {
  std::vector<Group> groups = GroupModels(files);
  ZEST_ASSIGN_OR_RETURN(const Group* chosen, ChooseGroup(spec, groups));
  ZEST_RETURN_IF_ERROR(CheckShards(*chosen));
  FileSelection out;
  out.quant = chosen->label;
  out.model_files = chosen->files;
  if (!IsSpeechModelFile(chosen->key)) {
    ZEST_ASSIGN_OR_RETURN(out.extra_files, ChooseMmproj(spec, files));
  }
  for (const auto* list : {&out.model_files, &out.extra_files}) {
    for (const HubFile& f : *list) {
      if (f.sha256.empty()) {
        return Unavailable(f.path +
                           " has no sha256 on the hub (not stored with LFS), so it "
                           "cannot be verified");
      }
    }
  }
  return out;
}

}  // namespace zest::models
