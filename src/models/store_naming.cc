#include "models/store_naming.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/strings.h"

namespace zest::models {
namespace {

constexpr std::string_view kGguf = ".gguf";
constexpr std::string_view kGgmlBin = ".bin";
constexpr std::string_view kGgmlPrefix = "ggml-";

bool HasSuffix(std::string_view path, std::string_view suffix) {
  return path.size() >= suffix.size() &&
         AsciiLower(path.substr(path.size() - suffix.size())) == suffix;
}

std::string_view StripGguf(std::string_view path) {
  if (HasSuffix(path, kGguf)) path.remove_suffix(kGguf.size());
  return path;
}

std::string_view FileName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A model's path without its extension: what names it when its label does
// not pick it out alone.
std::string_view StripModelExtension(std::string_view path) {
  if (IsSpeechModelFile(path)) return path.substr(0, path.size() - kGgmlBin.size());
  return StripGguf(path);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// ggml's quantization names: Q4_0, Q4_K_M, IQ4_XS, IQ2_XXS, TQ1_0, Q4_K_XL
// (unsloth's dynamic quants), plus the float and MX formats.
bool IsQuantToken(const std::string& t) {
  static const std::set<std::string> kPlain = {"F16", "F32", "BF16", "MXFP4", "FP16", "FP32"};
  if (kPlain.contains(t)) return true;
  size_t i = 0;
  if (t.starts_with("IQ") || t.starts_with("TQ")) {
    i = 2;
  } else if (t.starts_with("Q")) {
    i = 1;
  } else {
    return false;
  }
  if (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i]))) return false;
  ++i;
  // The rest: "_"-separated groups of letters/digits, e.g. "_K_M".
  if (i == t.size()) return true;
  if (t[i] != '_') return false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c == '_' ? (i + 1 == t.size() || t[i + 1] == '_')
                 : !std::isalnum(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

// The label in one path segment: its '-'/'.'-separated tokens, last first.
std::string LabelInSegment(std::string_view segment) {
  size_t end = segment.size();
  while (true) {
    size_t start = segment.find_last_of("-.", end == 0 ? 0 : end - 1);
    size_t from = start == std::string_view::npos ? 0 : start + 1;
    if (from < end) {
      std::string token = AsciiUpper(segment.substr(from, end - from));
      if (IsQuantToken(token)) return token;
    }
    if (start == std::string_view::npos || start == 0) return {};
    end = start;
  }
}

struct Group {
  std::vector<StoreFile> files;  // by shard index for shard sets
  int expected = 1;
};

// Groups GGUF model files (mmproj excluded) by model, keyed by the first
// file's path. Incomplete shard sets are kept only when asked to.
std::map<std::string, Group> GroupFiles(const std::vector<StoreFile>& repo_files,
                                        bool complete_only) {
  std::set<std::string> seen;
  std::map<std::string, std::map<int, StoreFile>> shards;  // base → index → file
  std::map<std::string, int> shard_counts;
  std::map<std::string, Group> groups;
  for (const StoreFile& f : repo_files) {
    if (IsMmproj(f.path) || !seen.insert(f.path).second) continue;
    if (auto shard = ParseShard(f.path)) {
      std::string key = shard->base + "#" + std::to_string(shard->count);
      shards[key].emplace(shard->index, f);
      shard_counts[key] = shard->count;
    } else {
      groups[f.path] = Group{{f}, 1};
    }
  }
  for (auto& [key, by_index] : shards) {
    int count = shard_counts[key];
    bool complete = static_cast<int>(by_index.size()) == count && by_index.begin()->first == 1 &&
                    by_index.rbegin()->first == count;
    if (complete_only && !complete) continue;
    Group g{{}, count};
    for (auto& [index, file] : by_index) g.files.push_back(file);
    groups[g.files.front().path] = std::move(g);
  }
  return groups;
}

std::string NameFor(const std::string& repo, const std::string& first_path,
                    const std::string& label, const std::map<std::string, int>& label_counts) {
  auto it = label_counts.find(label);
  if (!label.empty() && it != label_counts.end() && it->second == 1) return repo + ":" + label;
  return repo + "/" + std::string(StripModelExtension(first_path));
}

std::map<std::string, int> LabelCounts(const std::map<std::string, Group>& groups) {
  std::map<std::string, int> counts;
  for (const auto& [first, g] : groups) ++counts[ModelLabel(first)];
  return counts;
}

int MmprojRank(const StoreFile& f) {
  std::string label = QuantLabel(f.path);
  if (label == "F16") return 0;
  if (label == "BF16") return 1;
  if (label == "F32") return 2;
  return 3;
}

}  // namespace

std::string QuantLabel(std::string_view path) {
  std::optional<ShardInfo> shard = ParseShard(path);
  std::string_view stem = shard ? std::string_view(shard->base) : StripGguf(path);
  size_t end = stem.size();
  while (true) {
    size_t slash = stem.rfind('/', end == 0 ? 0 : end - 1);
    size_t from = slash == std::string_view::npos ? 0 : slash + 1;
    if (from < end) {
      if (std::string label = LabelInSegment(stem.substr(from, end - from)); !label.empty()) {
        return label;
      }
    }
    if (slash == std::string_view::npos || slash == 0) return {};
    end = slash;
  }
}

bool SameQuant(std::string_view a, std::string_view b) { return AsciiUpper(a) == AsciiUpper(b); }

bool IsSpeechModelFile(std::string_view path) {
  std::string name = AsciiLower(FileName(path));
  return name.starts_with(kGgmlPrefix) && name.size() > kGgmlPrefix.size() + kGgmlBin.size() &&
         name.ends_with(kGgmlBin);
}

bool IsModelFile(std::string_view path) {
  return HasSuffix(path, kGguf) || IsSpeechModelFile(path);
}

std::string ModelLabel(std::string_view path) {
  if (!IsSpeechModelFile(path)) return QuantLabel(path);
  std::string_view name = FileName(path);
  name.remove_prefix(kGgmlPrefix.size());
  name.remove_suffix(kGgmlBin.size());
  return std::string(name);
}

std::optional<ShardInfo> ParseShard(std::string_view path) {
  std::string_view stem = StripGguf(path);
  if (stem.size() == path.size()) return std::nullopt;
  // "-00001-of-00003": 5-digit numbers in llama.cpp's gguf-split naming.
  constexpr size_t kSuffix = 15;
  if (stem.size() <= kSuffix) return std::nullopt;
  std::string_view suffix = stem.substr(stem.size() - kSuffix);
  if (suffix[0] != '-' || suffix.substr(6, 4) != "-of-") return std::nullopt;
  std::string_view index = suffix.substr(1, 5);
  std::string_view count = suffix.substr(10, 5);
  if (!AllDigits(index) || !AllDigits(count)) return std::nullopt;
  ShardInfo info{std::stoi(std::string(index)), std::stoi(std::string(count)),
                 std::string(stem.substr(0, stem.size() - kSuffix))};
  if (info.index < 1 || info.count < 1 || info.index > info.count) return std::nullopt;
  return info;
}

bool IsMmproj(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string name = AsciiLower(slash == std::string_view::npos ? path : path.substr(slash + 1));
  return name.find("mmproj") != std::string::npos;
}

bool IsVocoder(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string name = AsciiLower(slash == std::string_view::npos ? path : path.substr(slash + 1));
  return name.find("vocoder") != std::string::npos;
}

bool IsVocoderArchitecture(std::string_view architecture) {
  return architecture == "wavtokenizer-dec";
}

std::vector<StoreModel> GroupStoreModels(const std::vector<StoreFile>& repo_files) {
  std::vector<StoreFile> mmprojs;
  std::set<std::string> seen;
  for (const StoreFile& f : repo_files) {
    if (IsMmproj(f.path) && seen.insert(f.path).second) mmprojs.push_back(f);
  }
  std::stable_sort(mmprojs.begin(), mmprojs.end(), [](const StoreFile& a, const StoreFile& b) {
    return MmprojRank(a) < MmprojRank(b);
  });
  std::map<std::string, Group> groups = GroupFiles(repo_files, /*complete_only=*/true);
  std::map<std::string, int> counts = LabelCounts(groups);
  std::vector<StoreModel> out;
  for (auto& [first, g] : groups) {
    const std::string& repo = g.files.front().repo;
    std::string label = ModelLabel(first);
    out.push_back({NameFor(repo, first, label, counts), repo, label, std::move(g.files), mmprojs});
  }
  std::sort(out.begin(), out.end(),
            [](const StoreModel& a, const StoreModel& b) { return a.name < b.name; });
  return out;
}

std::string StoreModelName(const StoreFile& file, const std::vector<StoreFile>& repo_files) {
  if (IsMmproj(file.path)) return {};
  std::vector<StoreFile> all = repo_files;
  all.push_back(file);
  std::map<std::string, Group> groups = GroupFiles(all, /*complete_only=*/false);
  std::map<std::string, int> counts = LabelCounts(groups);
  for (const auto& [first, g] : groups) {
    for (const StoreFile& f : g.files) {
      if (f.path == file.path) return NameFor(file.repo, first, ModelLabel(first), counts);
    }
  }
  return file.repo + "/" + std::string(StripModelExtension(file.path));
}

}  // namespace zest::models
