#include "models/ollama_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>

namespace zest::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kDefaultHost = "registry.ollama.ai";
constexpr std::string_view kMediaPrefix = "application/vnd.ollama.image.";
// Text layers are a few KiB; a bigger one is not what it says it is.
constexpr uintmax_t kMaxTextLayer = 1 << 20;

bool IsHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// "sha256:<hex>" → <hex>, else nullopt.
std::optional<std::string> Sha256Of(const json& layer) {
  const json digest = layer.value("digest", json());
  if (!digest.is_string()) return std::nullopt;
  const std::string d = digest.get<std::string>();
  if (!d.starts_with("sha256:") || !IsHex64(std::string_view(d).substr(7))) return std::nullopt;
  return d.substr(7);
}

std::optional<std::string> ReadSmall(const fs::path& file) {
  std::error_code ec;
  if (fs::file_size(file, ec) > kMaxTextLayer || ec) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The model a manifest describes, or nullopt (not a GGUF model, unreadable).
std::optional<OllamaModel> ReadManifest(const fs::path& root, const fs::path& file,
                                        std::string name) {
  std::optional<std::string> text = ReadSmall(file);
  if (!text) return std::nullopt;
  const json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const json layers = doc.is_object() ? doc.value("layers", json()) : json();
  if (!layers.is_array()) return std::nullopt;
  OllamaModel m;
  m.name = std::move(name);
  m.manifest = file;
  std::error_code ec;
  for (const json& layer : layers) {
    if (!layer.is_object()) continue;
    const json type = layer.value("mediaType", json());
    std::optional<std::string> sha = Sha256Of(layer);
    if (!type.is_string() || !sha) continue;
    std::string_view kind = type.get_ref<const std::string&>();
    if (!kind.starts_with(kMediaPrefix)) continue;
    kind.remove_prefix(kMediaPrefix.size());
    const fs::path blob = root / "blobs" / ("sha256-" + *sha);
    if (!fs::is_regular_file(blob, ec)) continue;  // not pulled yet, or pruned
    if (kind == "model" && m.model.empty()) {
      m.model = blob;
      m.model_sha256 = *sha;
    } else if (kind == "projector" && m.projector.empty()) {
      m.projector = blob;
      m.projector_sha256 = *sha;
    } else if (kind == "system") {
      m.system = ReadSmall(blob).value_or("");
    } else if (kind == "params") {
      json params = json::parse(ReadSmall(blob).value_or(""), nullptr, false);
      if (params.is_object()) m.parameters = std::move(params);
    } else if (kind == "template") {
      m.has_template = true;
    }
  }
  if (m.model.empty()) return std::nullopt;  // a safetensors import, or blobs missing
  return m;
}

// A path component as Ollama writes one: no dot files, nothing empty.
bool Plain(const fs::path& part) {
  const std::string s = part.string();
  return !s.empty() && s[0] != '.';
}

}  // namespace

std::string OllamaStore::DisplayName(const std::string& host, const std::string& ns,
                                     const std::string& model, const std::string& tag) {
  std::string name = host == kDefaultHost ? (ns == "library" ? model : ns + "/" + model)
                                          : host + "/" + ns + "/" + model;
  return tag == "latest" ? name : name + ":" + tag;
}

std::vector<OllamaModel> OllamaStore::List() const {
  std::vector<OllamaModel> out;
  const fs::path manifests = root_ / "manifests";
  std::error_code ec;
  if (!fs::is_directory(manifests, ec)) return out;
  // Exactly four levels: <host>/<namespace>/<model>/<tag>.
  for (auto it = fs::recursive_directory_iterator(manifests, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() < 3) {
      if (!Plain(it->path().filename())) it.disable_recursion_pending();
      continue;
    }
    it.disable_recursion_pending();  // nothing lies deeper
    if (!it->is_regular_file(ec)) continue;
    const fs::path rel = it->path().lexically_relative(manifests);
    std::vector<std::string> parts;
    for (const fs::path& p : rel) parts.push_back(p.string());
    if (parts.size() != 4 || !Plain(parts[3])) continue;
    std::optional<OllamaModel> m =
        ReadManifest(root_, it->path(), DisplayName(parts[0], parts[1], parts[2], parts[3]));
    if (m) out.push_back(std::move(*m));
  }
  if (ec) spdlog::debug("ollama store {}: {}", root_.string(), ec.message());
  std::sort(out.begin(), out.end(),
            [](const OllamaModel& a, const OllamaModel& b) { return a.name < b.name; });
  return out;
}

}  // namespace zest::models
