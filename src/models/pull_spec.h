// Pull specs and file selection: what `zest pull X` means, as pure
// functions over strings and a repo's file list (no network, no disk), so
// every rule is table-tested.
//
//   "Qwen3-0.6B-GGUF"                  a catalog name
//   "org/repo", "org/repo:Q5_K_M"      a hub repo, optionally a quantization
//   "org/repo:Q5_K_M@REVISION"         ... at a commit, branch or tag
//   "hf.co/org/repo/dir/file.gguf"     one file (also "huggingface.co/...",
//   "https://huggingface.co/org/repo/resolve/main/file.gguf")
//
// Choosing files from a repo: the requested quantization (default Q4_K_M,
// else the smallest of at least 4 bits, else the largest below), or for
// whisper.cpp's speech models the named one ("org/repo:base.en", default
// "base"), every shard
// of it ("-00001-of-00003.gguf", also inside a folder such as "Q4_K_M/"),
// and the vision projector (mmproj) when the repo has one. Labels and shard
// names are read with the store's own rules (store_naming.h), so a pulled
// model is named the way the store lists it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "models/catalog.h"
#include "models/store_naming.h"  // QuantLabel, ParseShard, IsMmproj

namespace zest::models {

inline constexpr std::string_view kDefaultQuant = "Q4_K_M";
// What a pull of whisper.cpp's repo without a label gets.
inline constexpr std::string_view kDefaultSpeechModel = "base";

struct PullSpec {
  std::string repo;  // "org/name", validated
  std::string revision = "main";
  std::string quant;         // upper-case label asked for, or empty (default)
  std::string file;          // an exact path in the repo, or empty
  std::string mmproj;        // an exact mmproj path (from the catalog), or empty
  std::string catalog_name;  // set when the spec named a catalog entry
};

// kInvalidArgument for malformed specs or unsafe repo ids/paths; kNotFound
// for a bare name the catalog (may be null) does not know.
Result<PullSpec> ParsePullSpec(std::string_view spec, const Catalog* catalog);

// A file as the hub lists it.
struct HubFile {
  std::string path;  // validated repo path
  uint64_t size = 0;
  std::string sha256;  // LFS oid (lower-case hex); empty for non-LFS files
};

struct FileSelection {
  std::string quant;                 // label of the chosen model files
  std::vector<HubFile> model_files;  // shards in order (one when unsharded)
  std::vector<HubFile> extra_files;  // mmproj
};

// Picks the files to download for `spec` from `files`. kNotFound naming what
// is available when the quant or file is absent; kInvalidArgument for an
// incomplete shard set.
Result<FileSelection> SelectFiles(const PullSpec& spec, const std::vector<HubFile>& files);

}  // namespace zest::models
