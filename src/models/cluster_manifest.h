// The cluster manifest: the models every node of a cluster must serve, so
// that any node can take any request (docs/scale-out.md). A TOML file named
// by `cluster.manifest`:
//
//   [[model]]
//   pull = "org/repo:Q4_K_M@REVISION"   # a pull spec; the revision pins it
//
//   [[model]]
//   file = "/srv/models/big.gguf"       # a file every node has (shared
//   sha256 = "9f86d08..."               # storage, or copied), and its hash
//
// Reading it only parses and validates; app/cluster_sync acts on it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"
#include "models/catalog.h"

namespace zest::models {

struct ManifestEntry {
  std::string pull;              // a pull spec, or empty for a file entry
  std::filesystem::path file;    // absolute, or empty for a pull entry
  std::string sha256;            // the file's, lower-case hex
  std::string Describe() const;  // the spec, or the file's path
};

// kInvalidArgument naming the file and entry for anything malformed: not
// TOML, an entry with both or neither of `pull` and `file`, a bad pull spec
// (checked against `catalog`, may be null), a relative file path, a file
// without a 64-hex-digit sha256, unknown keys.
Result<std::vector<ManifestEntry>> ReadManifest(const std::filesystem::path& path,
                                                const Catalog* catalog);

}  // namespace zest::models
