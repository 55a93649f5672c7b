// ModelRegistry: the models zest can serve, by name. Sources, in rising
// precedence for a name:
//   catalog    a curated model (models/catalog.h) that is in the store,
//              under its catalog name;
//   ollama, lmstudio
//              the models Ollama and LM Studio downloaded, read in place
//              (models/ollama_store.h, models/lmstudio_store.h; set with
//              SetOtherStores): the lowest precedence, so a model of zest's
//              own keeps its name; an Ollama blob is checked against its
//              digest when it is first served (models/blob_digest.h);
//   store      GGUF files in the Hugging Face cache (models/hf_store.h),
//              named "org/repo:QUANT" or "org/repo/<path>" (models/store_naming.h);
//   models_dir every *.gguf in the models directory, named by its file stem;
//              NAME.mmproj.gguf beside NAME.gguf is its vision projector
//              (files named *mmproj* are projectors, never models);
//              NAME.vocoder.gguf beside NAME.gguf makes NAME a speech-out
//              model (info.tts) with that vocoder (files named *vocoder*
//              and wavtokenizer-dec GGUFs are vocoders, never models);
//              a projector that writes audio (clip.has_gen_audio_encoder:
//              the codec of Qwen3-TTS or Pocket TTS, shipped as an mmproj)
//              is the model's vocoder too, in the models directory, the
//              store and `zest add --mmproj` alike;
//   user       registrations made with `zest add NAME PATH [--mmproj FILE]`
//              (a JSON file);
//   preset     models made from another with Ollama's /api/create (the same
//              file): the other model's file and details, with request
//              defaults (ModelPreset), kept in the same JSON file.
// A catalog model that is not downloaded is not servable; Find says how to
// pull it.
//
// Listing rescans the directory and the store each time (cheap), and GGUF
// headers are cached by path, size and mtime. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "models/blob_digest.h"
#include "models/catalog.h"
#include "models/gguf_reader.h"
#include "models/hf_store.h"
#include "models/lmstudio_store.h"
#include "models/model_aliases.h"
#include "models/ollama_store.h"
#include "models/projector_info.h"

namespace zest::models {

struct StoreModel;  // models/store_naming.h

// A model made from another (its `from`) with a system prompt, default
// request options or leading messages: what Ollama's /api/create makes of
// a Modelfile's FROM, SYSTEM, PARAMETER and MESSAGE. Requests for it run on
// the `from` model's engine (api/model_preset.h applies the defaults).
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ModelPreset {
  std::string from;           // the base model's name
  std::string system;         // for requests without a system message
  nlohmann::json parameters;  // Ollama's options (api/model_preset.h maps them)
  nlohmann::json messages;    // OpenAI messages put before the request's
};

struct ModelEntry {
  std::string name;
  std::filesystem::path path;
  // "models_dir", "user", "hf_store", "catalog", "preset", "ollama" or
  // "lmstudio"
  std::string source;
  int64_t created = 0;  // file mtime, seconds since the epoch
  ModelInfo info;       // valid when `error` is empty (file_size: all shards)
  std::string error;    // why the header could not be read, if so
  // Store models (source "hf_store" or "catalog"):
  std::string repo;                      // "org/name"
  std::vector<std::string> store_paths;  // its files in the repo, first shard first
  std::filesystem::path mmproj;          // vision projector of its repo, if any
  // What `mmproj` takes (images, audio), read from its header; a projector
  // that cannot feed the model (another width, not a projector) makes the
  // model's `error` instead, with both widths.
  ProjectorInfo projector;
  // A speech-out model's vocoder (NAME.vocoder.gguf beside it, or an mmproj
  // that writes audio): the backbone writes audio codes, the vocoder makes
  // them a waveform. Set: `info.tts`.
  std::filesystem::path vocoder;
  std::string catalog;  // the catalog entry naming this file, if any
  // That entry's usual draft model (its catalog name), if it names one:
  // taken from the catalog the registry was given, so nothing downstream
  // looks the entry up again (scheduler/speculative_choice.h).
  std::string catalog_draft;
  // A preset (source "preset"): what it adds to its base's file and details.
  // An Ollama model whose Modelfile has a SYSTEM or PARAMETERs carries them
  // as a preset made from itself (its `from` is its own name).
  std::optional<ModelPreset> preset;
  // Files that must hash to a sha256 (lowercase hex) before they are served:
  // an Ollama model's blobs. Find checks them; a mismatch is `error`.
  std::map<std::filesystem::path, std::string> digests;
  // Where a model of another tool's store was found: the Ollama manifest or
  // the LM Studio models directory.
  std::filesystem::path origin;
};

// A catalog entry and whether its file is in the store.
struct CatalogStatus {
  CatalogEntry entry;
  bool downloaded = false;
  std::string model;  // the store model's name when downloaded (GGUF recipes)
};

class ModelRegistry {
 public:
  // An empty `hf_store_root` turns the store off; `catalog` may be null (no
  // catalog) and must outlive the registry.
  ModelRegistry(std::filesystem::path models_dir, std::filesystem::path user_models_file,
                std::filesystem::path hf_store_root = {},
                const Catalog* catalog = &Catalog::Builtin());

  // All models, sorted by name.
  std::vector<ModelEntry> List();
  // The model `name` names: exactly, else case-insensitively when that
  // matches one model. kNotFound otherwise: for a catalog model or a store
  // name that is not downloaded the message says `zest pull NAME`, else it
  // lists the available names.
  // A name no model has may be an alias (model_aliases.h): the model it
  // stands for, or kNotFound saying the alias's model is missing.
  Result<ModelEntry> Find(const std::string& name);
  // Aliases from the configuration; set before serving (not thread-safe
  // with Find).
  void SetAliases(std::vector<ModelAlias> aliases) { aliases_ = std::move(aliases); }
  // Ollama's and LM Studio's models directories to serve from, in place
  // (the first to name a model wins); set before serving (not thread-safe
  // with List or Find). A directory that does not exist adds nothing.
  void SetOtherStores(const std::vector<std::filesystem::path>& ollama,
                      const std::vector<std::filesystem::path>& lmstudio);
  // The aliases (names and patterns) that stand for `model`.
  std::vector<std::string> AliasesOf(const std::string& model) const;
  // Every catalog entry with whether it is downloaded.
  std::vector<CatalogStatus> ListCatalog();
  // The names List() serves `model`'s file under (its own included), e.g. a
  // store name and a catalog name: each may have an engine running.
  std::vector<std::string> NamesFor(const ModelEntry& model);
  // Deletes `model` as Find returned it: a store model's files (blobs that
  // other snapshots link are kept; the repo's projectors go with its last
  // model), a models-dir file (a symlink there: the link only), or for a
  // `zest add` model only its registration, never the user's file.
  Status Remove(const ModelEntry& model);
  // Registers `path` (must be a readable GGUF) under `name` and persists the
  // list atomically. Replaces an earlier registration of the same name.
  // With `mmproj` (not empty): the model's vision projector, a GGUF of
  // architecture "clip".
  Status Add(const std::string& name, const std::filesystem::path& path,
             const std::filesystem::path& mmproj = {});
  // Registers `preset` under `name` (its `from` must be a model here that is
  // not itself a preset) and persists the list. Replaces an earlier
  // registration of the same name.
  Status AddPreset(const std::string& name, const ModelPreset& preset);

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
  // Reads `entry.mmproj` (cached like models) into entry.projector, or
  // sets entry.error when it cannot serve with the model. A projector that
  // writes audio becomes the model's vocoder instead (info.tts).
  void PairProjector(ModelEntry& entry);
  struct CachedProjector {
    bool read = false;
    uint64_t size = 0;
    int64_t mtime = 0;
    Result<ProjectorInfo> info;
  };
  // Store models under their store names, and downloaded catalog models
  // under their catalog names.
  std::vector<ModelEntry> StoreEntries();
  ModelEntry DescribeStoreModel(const StoreModel& model, const std::string& name,
                                const std::string& source);
  Status RemoveStoreModel(const ModelEntry& model);
  // Ollama's and LM Studio's models, the first store to name one winning.
  std::vector<ModelEntry> OtherStoreEntries();
  ModelEntry DescribeOllamaModel(const OllamaModel& model);
  // The match of `name` in a listing, alias or not, or kNotFound.
  Result<ModelEntry> FindListed(const std::string& name);
  // Sets `entry.error` when one of its `digests` does not match (hashing
  // what was not hashed since it last changed).
  void VerifyDigests(ModelEntry& entry);
  // The user file: `zest add` registrations (name → path) and presets.
  struct UserFile {
    std::filesystem::path path;
    std::filesystem::path mmproj;  // empty: none
  };
  struct UserModels {
    std::map<std::string, UserFile> files;
    std::map<std::string, ModelPreset> presets;
  };
  UserModels LoadUserModels();
  Status SaveUserModels(const UserModels& models);

  const std::filesystem::path models_dir_;
  const std::filesystem::path user_models_file_;
  const std::optional<HfStore> store_;
  const Catalog* const catalog_;
  std::vector<ModelAlias> aliases_;
  std::vector<OllamaStore> ollama_;
  std::vector<LmStudioStore> lmstudio_;
  BlobDigests digests_;
  std::vector<ModelEntry> Scan();

  Mutex mu_;
  std::map<std::string, CachedInfo> cache_ GUARDED_BY(mu_);            // by path
  std::map<std::string, CachedProjector> projectors_ GUARDED_BY(mu_);  // by path
  // The last full listing: Find() reuses it for a moment instead of walking
  // the models dir and the whole HF cache on every request.
  Mutex snapshot_mu_;
  std::vector<ModelEntry> snapshot_ GUARDED_BY(snapshot_mu_);
  std::chrono::steady_clock::time_point snapshot_time_ GUARDED_BY(snapshot_mu_){};
};

}  // namespace zest::models
