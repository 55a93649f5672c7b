#include "models/cluster_manifest.h"

#include <toml++/toml.h>

#include "core/strings.h"
#include "models/hf_store.h"
#include "models/pull_spec.h"

namespace zest::models {

std::string ManifestEntry::Describe() const { return pull.empty() ? file.string() : pull; }

namespace {

Result<ManifestEntry> ReadEntry(const toml::table& t) {
  ManifestEntry e;
  for (const auto& [key, value] : t) {
    const std::string_view name = key.str();
    const std::optional<std::string> text = value.value<std::string>();
    if (name != "pull" && name != "file" && name != "sha256") {
      return InvalidArgument("unknown key '" + std::string(name) + "' (pull, file, sha256)");
    }
    if (!text) return InvalidArgument("'" + std::string(name) + "' must be a string");
    if (name == "pull") e.pull = *text;
    if (name == "file") e.file = *text;
    if (name == "sha256") e.sha256 = AsciiLower(*text);
  }
  if (e.pull.empty() == e.file.empty()) {
    return InvalidArgument("each [[model]] needs either pull = \"org/repo:QUANT\" or file = PATH");
  }
  if (!e.file.empty()) {
    if (!e.file.is_absolute()) return InvalidArgument("file must be an absolute path");
    if (!HfStore::ValidSha256(e.sha256)) {
      return InvalidArgument("file " + e.file.string() +
                             " needs sha256 = its 64-hex-digit hash (sha256sum FILE)");
    }
  } else if (!e.sha256.empty()) {
    return InvalidArgument("sha256 belongs to file entries; the hub's hashes check pulls");
  }
  return e;
}

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(const std::filesystem::path& path,
                                                const Catalog* catalog) {
  toml::table parsed;
  try {
    parsed = toml::parse_file(path.string());
  } catch (const toml::parse_error& err) {  // Debian's toml++ reports errors by exception
    return InvalidArgument("cluster manifest " + path.string() + ":" +
                           std::to_string(err.source().begin.line) + ": " +
                           std::string(err.description()));
  }
  std::vector<ManifestEntry> entries;
  const toml::array* models = parsed["model"].as_array();
  if (parsed.size() != (models != nullptr ? 1u : 0u)) {
    return InvalidArgument("cluster manifest " + path.string() +
                           ": only [[model]] entries belong in it");
  }
  for (std::size_t i = 0; models != nullptr && i < models->size(); ++i) {
    const toml::table* t = (*models)[i].as_table();
    Result<ManifestEntry> entry =
        t != nullptr ? ReadEntry(*t) : Result<ManifestEntry>(InvalidArgument("not a table"));
    if (entry.ok() && !entry->pull.empty()) {
      if (auto spec = ParsePullSpec(entry->pull, catalog); !spec.ok()) entry = spec.status();
    }
    if (!entry.ok()) {
      return InvalidArgument("cluster manifest " + path.string() + ", model " +
                             std::to_string(i + 1) + ": " + entry.status().message());
    }
    entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace zest::models
