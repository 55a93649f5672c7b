#include "models/model_registry.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "config/secure_file.h"
#include "core/private_dirs.h"
#include "core/strings.h"
#include "models/safetensors_file.h"
#include "models/store_naming.h"
#include "models/whisper_file.h"

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

// The store's model files by repo, the files of the snapshot refs/main points
// to first, so they win when several snapshots hold the same path.
std::map<std::string, std::vector<StoreFile>> FilesByRepo(const HfStore& store) {
  std::map<std::string, std::vector<StoreFile>> by_repo;
  for (StoreFile& f : store.ListModelFiles()) by_repo[f.repo].push_back(std::move(f));
  for (auto& [repo, files] : by_repo) {
    std::optional<std::string> main = store.ReadRef(repo, "main");
    std::stable_partition(files.begin(), files.end(),
                          [&](const StoreFile& f) { return main && f.commit == *main; });
  }
  return by_repo;
}

// The store model a GGUF catalog entry describes, if downloaded.
const StoreModel* MatchCatalog(const CatalogEntry& e, const std::vector<StoreModel>& models) {
  for (const StoreModel& m : models) {
    if (!e.file.empty() && m.files.front().path == e.file) return &m;
    if (!e.quant.empty() && !m.quant.empty() && SameQuant(m.quant, e.quant)) return &m;
  }
  return nullptr;
}

// "org/repo:QUANT" or "org/repo/path": a name the store would give.
bool LooksLikeStoreName(const std::string& name) {
  std::string repo = name.substr(0, name.find(':'));
  size_t second_slash = repo.find('/', repo.find('/') + 1);
  return HfStore::ValidRepoId(repo.substr(0, second_slash));
}

// A GGUF backbone with its vocoder beside it is a speech-out model.
void PairVocoder(ModelEntry& entry, const fs::path& vocoder) {
  std::error_code ec;
  if (entry.info.speech || entry.info.image || !fs::is_regular_file(vocoder, ec)) return;
  entry.vocoder = vocoder;
  entry.info.tts = true;
}

}  // namespace

ModelRegistry::ModelRegistry(fs::path models_dir, fs::path user_models_file, fs::path hf_store_root,
                             const Catalog* catalog)
    : models_dir_(std::move(models_dir)),
      user_models_file_(std::move(user_models_file)),
      store_(hf_store_root.empty() ? std::nullopt
                                   : std::optional<HfStore>(std::move(hf_store_root))),
      catalog_(catalog) {}

bool ModelRegistry::ValidName(const std::string& name) {
  if (name.empty() || name.size() > 128 || name[0] == '.' || name[0] == '/') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == ':' || c == '/';
  });
}

std::vector<ModelEntry> ModelRegistry::List() {
  std::vector<ModelEntry> all = Scan();
  MutexLock lock(snapshot_mu_);
  snapshot_ = all;
  snapshot_time_ = std::chrono::steady_clock::now();
  return all;
}

std::vector<ModelEntry> ModelRegistry::Scan() {
  std::map<std::string, ModelEntry> by_name;
  // Inserted in rising precedence: later sources replace earlier names.
  for (ModelEntry& e : OtherStoreEntries()) by_name[e.name] = std::move(e);
  for (ModelEntry& e : StoreEntries()) by_name[e.name] = std::move(e);
  std::error_code ec;
  for (auto it = fs::directory_iterator(models_dir_, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    // GGUF language models, whisper.cpp speech models (ggml `.bin`) and
    // image generation models (diffusion models in safetensors).
    const bool bin = p.extension() == ".bin";
    if (!bin && p.extension() != ".gguf" && p.extension() != ".safetensors") continue;
    if (!it->is_regular_file(ec) || (bin && !HasGgmlMagic(p))) continue;
    if (IsMmproj(p.filename().string())) continue;   // a projector, paired below
    if (IsVocoder(p.filename().string())) continue;  // a vocoder, paired below
    std::string name = p.stem().string();
    if (!ValidName(name)) continue;
    ModelEntry entry = Describe(name, p, "models_dir");
    if (entry.info.architecture == "clip") continue;               // a projector named otherwise
    if (IsVocoderArchitecture(entry.info.architecture)) continue;  // a vocoder named otherwise
    if (p.extension() == ".gguf") {
      fs::path projector = models_dir_ / (name + ".mmproj.gguf");
      if (fs::is_regular_file(projector, ec)) entry.mmproj = std::move(projector);
      PairVocoder(entry, models_dir_ / (name + ".vocoder.gguf"));
    }
    by_name[name] = std::move(entry);
  }
  const UserModels user = LoadUserModels();
  for (const auto& [name, file] : user.files) {
    ModelEntry entry = Describe(name, file.path, "user");
    entry.mmproj = file.mmproj;
    by_name[name] = std::move(entry);
  }
  // A preset shows its base's file and details under its own name; one
  // whose base is gone is left out (Find says why).
  for (const auto& [name, preset] : user.presets) {
    auto base = by_name.find(preset.from);
    // (An Ollama model's own preset is its Modelfile's: one may be made from it.)
    if (base == by_name.end() || base->second.source == "preset") continue;
    ModelEntry entry = base->second;
    entry.name = name;
    entry.source = "preset";
    entry.preset = preset;
    by_name[name] = std::move(entry);
  }
  std::vector<ModelEntry> out;
  for (auto& [name, entry] : by_name) {
    if (IsVocoderArchitecture(entry.info.architecture)) continue;  // a stored vocoder
    if (!entry.mmproj.empty() && entry.error.empty()) PairProjector(entry);
    out.push_back(std::move(entry));
  }
  return out;
}

void ModelRegistry::PairProjector(ModelEntry& entry) {
  const int64_t mtime = MtimeSeconds(entry.mmproj);
  std::error_code ec;
  const uint64_t size = fs::file_size(entry.mmproj, ec);
  Result<ProjectorInfo> projector = NotFound("cannot read " + entry.mmproj.string());
  if (!ec) {
    MutexLock lock(mu_);
    CachedProjector& cached = projectors_[entry.mmproj.string()];
    if (!cached.read || cached.size != size || cached.mtime != mtime) {
      Result<GgufFile> gguf = ReadGguf(entry.mmproj);
      cached = {true, size, mtime,
                gguf.ok() ? DescribeProjector(*gguf) : Result<ProjectorInfo>(gguf.status())};
    }
    projector = cached.info;
  }
  if (projector.ok() && projector->has_gen_audio && !projector->has_vision &&
      !projector->has_audio) {
    // A codec that writes audio (Qwen3-TTS, Pocket TTS): the model speaks.
    if (entry.info.speech || entry.info.image) return;
    entry.vocoder = std::exchange(entry.mmproj, {});
    entry.info.tts = true;
    return;
  }
  Status fits = projector.ok() ? CheckProjectorFits(*projector, entry.info.embedding_length)
                               : projector.status();
  if (!fits.ok()) {
    entry.error =
        "its projector " + entry.mmproj.string() + " cannot serve with it: " + fits.message();
    return;
  }
  entry.projector = std::move(*projector);
}

namespace {

// Exact name first; quantization labels and catalog names are
// case-insensitive when that leaves one model.
const ModelEntry* MatchName(const std::vector<ModelEntry>& all, const std::string& name) {
  for (const ModelEntry& e : all) {
    if (e.name == name) return &e;
  }
  std::vector<const ModelEntry*> folded;
  for (const ModelEntry& e : all) {
    if (AsciiLower(e.name) == AsciiLower(name)) folded.push_back(&e);
  }
  if (folded.size() == 1) return folded.front();
  // "NAME:latest" is NAME, as in Ollama (whose clients send the tag).
  constexpr std::string_view kLatest = ":latest";
  if (name.size() > kLatest.size() && name.ends_with(kLatest)) {
    return MatchName(all, name.substr(0, name.size() - kLatest.size()));
  }
  return nullptr;
}

}  // namespace

Result<ModelEntry> ModelRegistry::Find(const std::string& name) {
  Result<ModelEntry> found = FindListed(name);
  if (found.ok()) VerifyDigests(*found);
  return found;
}

void ModelRegistry::VerifyDigests(ModelEntry& entry) {
  if (!entry.error.empty()) return;
  for (const auto& [file, sha256] : entry.digests) {
    if (Status verified = digests_.Verify(file, sha256); !verified.ok()) {
      entry.error = verified.message();
      return;
    }
  }
}

void ModelRegistry::SetOtherStores(const std::vector<fs::path>& ollama,
                                   const std::vector<fs::path>& lmstudio) {
  ollama_.clear();
  lmstudio_.clear();
  for (const fs::path& root : ollama) ollama_.emplace_back(root);
  for (const fs::path& root : lmstudio) lmstudio_.emplace_back(root);
}

std::vector<ModelEntry> ModelRegistry::OtherStoreEntries() {
  std::map<std::string, ModelEntry> by_name;  // emplace: the first store's wins
  for (const OllamaStore& store : ollama_) {
    for (const OllamaModel& m : store.List()) {
      if (!ValidName(m.name) || by_name.count(m.name)) continue;
      by_name.emplace(m.name, DescribeOllamaModel(m));
    }
  }
  for (const LmStudioStore& store : lmstudio_) {
    std::map<std::string, std::vector<StoreFile>> by_repo;
    for (StoreFile& f : store.ListModelFiles()) by_repo[f.repo].push_back(std::move(f));
    for (const auto& [repo, files] : by_repo) {
      for (const StoreModel& m : GroupStoreModels(files)) {
        if (!ValidName(m.name) || by_name.count(m.name)) continue;
        ModelEntry entry = DescribeStoreModel(m, m.name, "lmstudio");
        entry.origin = store.root();
        by_name.emplace(m.name, std::move(entry));
      }
    }
  }
  std::vector<ModelEntry> out;
  for (auto& [name, entry] : by_name) out.push_back(std::move(entry));
  return out;
}

ModelEntry ModelRegistry::DescribeOllamaModel(const OllamaModel& model) {
  ModelEntry entry = Describe(model.name, model.model, "ollama");
  entry.origin = model.manifest;
  entry.mmproj = model.projector;
  entry.digests[model.model] = model.model_sha256;
  if (!model.projector.empty()) entry.digests[model.projector] = model.projector_sha256;
  // The Modelfile's SYSTEM and PARAMETERs, as a preset made from itself
  // (api/model_preset.h applies it to each request). Its TEMPLATE is a Go
  // template zest cannot run: the engine formats with the GGUF's own.
  if (!model.system.empty() || !model.parameters.empty()) {
    ModelPreset preset;
    preset.from = model.name;
    preset.system = model.system;
    preset.parameters = model.parameters.is_object() ? model.parameters : nlohmann::json::object();
    preset.messages = nlohmann::json::array();
    entry.preset = std::move(preset);
  }
  // A blob already found not to match is shown so in listings; the others
  // are hashed when first served (Find), not while listing.
  for (const auto& [file, sha256] : entry.digests) {
    std::optional<Status> known = digests_.Known(file, sha256);
    if (known && !known->ok() && entry.error.empty()) entry.error = known->message();
  }
  return entry;
}

Result<ModelEntry> ModelRegistry::FindListed(const std::string& name) {
  const std::optional<std::string> target = ResolveAlias(aliases_, name);
  {
    // The last listing when it is under a second old (requests come in
    // bursts), else a fresh one: a stale hit costs at most a second of not
    // noticing a file that disappeared; a miss always rescans. Only the
    // entry found is copied (every request looks its model up here: copying
    // the listing cost each one a copy of every model).
    MutexLock lock(snapshot_mu_);
    if (std::chrono::steady_clock::now() - snapshot_time_ < std::chrono::seconds(1)) {
      if (const ModelEntry* hit = MatchName(snapshot_, name)) return *hit;
      if (const ModelEntry* hit = target ? MatchName(snapshot_, *target) : nullptr) return *hit;
    }
  }
  // Not there, or the listing is old: it may have just arrived (pulled,
  // copied in, added).
  std::vector<ModelEntry> all = List();
  if (const ModelEntry* hit = MatchName(all, name)) return *hit;
  if (target) {
    if (const ModelEntry* hit = MatchName(all, *target)) return *hit;
    return NotFound("model '" + name + "' is an alias of '" + *target +
                    "', which is not here (see [aliases] in config.toml)");
  }
  if (const CatalogEntry* c = catalog_ ? catalog_->Find(name) : nullptr) {
    return NotFound("model '" + name + "' is in the catalog but not downloaded; run `zest pull " +
                    c->name + "`");
  }
  if (LooksLikeStoreName(name)) {
    return NotFound("model '" + name + "' is not downloaded; run `zest pull " + name + "`");
  }
  std::string names;
  for (const ModelEntry& e : all) names += (names.empty() ? "" : ", ") + e.name;
  return NotFound("model '" + name + "' not found" +
                  (names.empty() ? " (no models in " + models_dir_.string() + ")"
                                 : " (available: " + names + ")"));
}

std::vector<std::string> ModelRegistry::AliasesOf(const std::string& model) const {
  std::vector<std::string> out;
  for (const ModelAlias& alias : aliases_) {
    if (alias.target == model) out.push_back(alias.pattern);
  }
  return out;
}

Status ModelRegistry::Add(const std::string& name, const fs::path& path, const fs::path& mmproj) {
  if (!ValidName(name)) return InvalidArgument("invalid model name '" + name + "'");
  UserFile file;
  for (auto [given, absolute] : {std::pair{&path, &file.path}, std::pair{&mmproj, &file.mmproj}}) {
    if (given->empty()) continue;
    std::error_code ec;
    *absolute = fs::absolute(*given, ec);
    if (ec || !fs::is_regular_file(*absolute, ec)) {
      return InvalidArgument("no such file: " + given->string());
    }
  }
  Result<GgufFile> gguf = ReadGguf(file.path);
  if (!gguf.ok()) return InvalidArgument(path.string() + ": " + gguf.status().message());
  const ModelInfo model = models::Describe(*gguf);
  if (model.architecture == "clip") {
    return InvalidArgument(path.string() +
                           " is a vision projector, not a model; give it as --mmproj");
  }
  if (!file.mmproj.empty()) {
    Result<GgufFile> projector = ReadGguf(file.mmproj);
    if (!projector.ok())
      return InvalidArgument(mmproj.string() + ": " + projector.status().message());
    Result<ProjectorInfo> info = DescribeProjector(*projector);
    if (!info.ok()) return InvalidArgument(mmproj.string() + ": " + info.status().message());
    ZEST_RETURN_IF_ERROR(CheckProjectorFits(*info, model.embedding_length));
  }
  UserModels models = LoadUserModels();
  models.presets.erase(name);
  models.files[name] = std::move(file);
  return SaveUserModels(models);
}

Status ModelRegistry::AddPreset(const std::string& name, const ModelPreset& preset) {
  if (!ValidName(name)) return InvalidArgument("invalid model name '" + name + "'");
  if (name == preset.from) return InvalidArgument("a model cannot be made from itself");
  Result<ModelEntry> base = Find(preset.from);
  if (!base.ok()) return base.status();
  if (base->source == "preset") {
    return InvalidArgument("'" + preset.from + "' is itself made from a model");
  }
  if (name == base->name) return InvalidArgument("a model cannot be made from itself");
  {
    MutexLock lock(snapshot_mu_);
    snapshot_time_ = {};  // the next Find rescans
  }
  UserModels models = LoadUserModels();
  models.files.erase(name);
  // Under the base's own name: `from` may be an alias or another case.
  ModelPreset& kept = models.presets[name];
  kept = preset;
  kept.from = base->name;
  return SaveUserModels(models);
}

std::vector<ModelEntry> ModelRegistry::StoreEntries() {
  std::vector<ModelEntry> aliases;
  std::vector<ModelEntry> stored;
  if (!store_) return stored;
  for (const auto& [repo, files] : FilesByRepo(*store_)) {
    std::vector<StoreModel> models = GroupStoreModels(files);
    // By store name; copies: the loop below may walk a temporary list.
    std::map<std::string, CatalogEntry> catalog_entries;
    for (const CatalogEntry& c : catalog_ ? catalog_->entries() : std::vector<CatalogEntry>{}) {
      if (AsciiLower(c.repo) != AsciiLower(repo) || !c.ServedFromStore()) continue;
      const StoreModel* m = MatchCatalog(c, models);
      if (!m) continue;
      ModelEntry alias = DescribeStoreModel(*m, c.name, "catalog");
      alias.catalog_draft = c.draft;
      for (const StoreFile& p : m->mmprojs) {
        if (p.path == c.mmproj) alias.mmproj = p.file;  // the catalog's pick wins
      }
      catalog_entries.emplace(m->name, c);
      aliases.push_back(std::move(alias));
    }
    for (const StoreModel& m : models) {
      stored.push_back(DescribeStoreModel(m, m.name, "hf_store"));
      if (auto it = catalog_entries.find(m.name); it != catalog_entries.end()) {
        stored.back().catalog = it->second.name;
        stored.back().catalog_draft = it->second.draft;
      }
    }
  }
  aliases.insert(aliases.end(), std::make_move_iterator(stored.begin()),
                 std::make_move_iterator(stored.end()));
  return aliases;
}

ModelEntry ModelRegistry::DescribeStoreModel(const StoreModel& model, const std::string& name,
                                             const std::string& source) {
  ModelEntry entry = Describe(name, model.files.front().file, source);
  entry.repo = model.repo;
  uint64_t total = 0;
  for (const StoreFile& f : model.files) {
    entry.store_paths.push_back(f.path);
    total += f.size;
  }
  if (entry.error.empty()) entry.info.file_size = total;
  if (!model.mmprojs.empty()) entry.mmproj = model.mmprojs.front().file;
  if (source == "catalog") entry.catalog = name;
  return entry;
}

std::vector<CatalogStatus> ModelRegistry::ListCatalog() {
  std::vector<CatalogStatus> out;
  if (!catalog_) return out;
  std::map<std::string, std::string> downloaded;  // catalog name → store model name
  for (const ModelEntry& e : StoreEntries()) {
    if (e.source == "hf_store" && !e.catalog.empty()) downloaded[e.catalog] = e.name;
  }
  for (const CatalogEntry& c : catalog_->entries()) {
    CatalogStatus status{c, false, {}};
    if (auto it = downloaded.find(c.name); it != downloaded.end()) {
      status.downloaded = true;
      status.model = it->second;
    } else if (store_ && !c.file.empty() && !c.ServedFromStore()) {
      // Files zest does not serve as models of their own are downloaded
      // all the same.
      status.downloaded = store_->FindFile(c.repo, c.file).has_value();
    }
    out.push_back(std::move(status));
  }
  return out;
}

std::vector<std::string> ModelRegistry::NamesFor(const ModelEntry& model) {
  std::vector<std::string> names;
  for (const ModelEntry& e : List()) {
    if (e.path == model.path) names.push_back(e.name);
  }
  if (std::find(names.begin(), names.end(), model.name) == names.end()) names.push_back(model.name);
  return names;
}

Status ModelRegistry::Remove(const ModelEntry& model) {
  {
    MutexLock lock(snapshot_mu_);
    snapshot_time_ = {};  // the next Find rescans
  }
  if (model.source == "user" || model.source == "preset") {
    UserModels models = LoadUserModels();
    if (models.files.erase(model.name) + models.presets.erase(model.name) == 0)
      return NotFound("model '" + model.name + "' is not registered");
    return SaveUserModels(models);
  }
  if (model.source == "models_dir") {
    std::error_code ec;
    if (!fs::remove(model.path, ec)) {
      return ec ? IoError("cannot remove " + model.path.string() + ": " + ec.message())
                : NotFound("model '" + model.name + "' is already gone");
    }
    return Status::Ok();
  }
  if (model.source == "hf_store" || model.source == "catalog") return RemoveStoreModel(model);
  if (model.source == "ollama" || model.source == "lmstudio") {
    // Read in place, never changed: the tool that keeps them removes them.
    return InvalidArgument("model '" + model.name + "' is in " +
                           (model.source == "ollama"
                                ? "Ollama's store (remove it with `ollama rm "
                                : "LM Studio's models (remove it in LM Studio") +
                           (model.source == "ollama" ? model.name + "`)" : std::string(")")));
  }
  return InvalidArgument("model '" + model.name + "' cannot be removed");
}

Status ModelRegistry::RemoveStoreModel(const ModelEntry& model) {
  if (!store_ || model.repo.empty() || model.store_paths.empty()) {
    return InvalidArgument("model '" + model.name + "' is not in the store");
  }
  std::vector<std::string> paths = model.store_paths;
  std::vector<StoreFile> files = FilesByRepo(*store_)[model.repo];
  std::vector<StoreModel> models = GroupStoreModels(files);
  bool last = std::all_of(models.begin(), models.end(), [&](const StoreModel& m) {
    return m.files.front().path == model.store_paths.front();
  });
  if (last && !models.empty()) {
    for (const StoreFile& p : models.front().mmprojs) paths.push_back(p.path);
  }
  return store_->Remove(model.repo, paths);
}

ModelEntry ModelRegistry::Describe(const std::string& name, const fs::path& path,
                                   const std::string& source) {
  ModelEntry entry;
  entry.name = name;
  entry.path = path;
  entry.source = source;
  entry.created = MtimeSeconds(path);
  std::error_code ec;
  uint64_t size = fs::file_size(path, ec);
  if (ec) {
    entry.error = "cannot read " + path.string() + ": " + ec.message();
    return entry;
  }
  MutexLock lock(mu_);
  CachedInfo& cached = cache_[path.string()];
  if (cached.size != size || cached.mtime != entry.created ||
      (cached.info.architecture.empty() && cached.error.empty())) {
    if (path.extension() == ".safetensors") {
      Result<SafetensorsFile> file = ReadSafetensorsFile(path);
      Result<ModelInfo> image = file.ok() ? DescribeDiffusionModel(*file) : file.status();
      cached = {size, entry.created, image.ok() ? *image : ModelInfo{},
                image.ok() ? "" : image.status().message()};
    } else if (HasGgmlMagic(path)) {
      Result<WhisperFile> whisper = ReadWhisperFile(path);
      cached = {size, entry.created, whisper.ok() ? DescribeWhisper(*whisper) : ModelInfo{},
                whisper.ok() ? "" : whisper.status().message()};
    } else {
      Result<GgufFile> gguf = ReadGguf(path);
      cached = {size, entry.created, gguf.ok() ? models::Describe(*gguf) : ModelInfo{},
                gguf.ok() ? "" : gguf.status().message()};
    }
  }
  entry.info = cached.info;
  entry.error = cached.error;
  return entry;
}

// A registration is a path (`zest add`) or an object (a preset).
ModelRegistry::UserModels ModelRegistry::LoadUserModels() {
  UserModels models;
  std::ifstream in(user_models_file_);
  if (!in) return models;
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    spdlog::warn("ignoring malformed {}", user_models_file_.string());
    return models;
  }
  for (const auto& [name, value] : doc.items()) {
    if (!ValidName(name)) continue;
    if (value.is_string()) models.files[name] = {value.get<std::string>(), {}};
    if (value.is_object() && value.value("path", nlohmann::json()).is_string()) {
      const nlohmann::json mmproj = value.value("mmproj", nlohmann::json());
      models.files[name] = {value["path"].get<std::string>(),
                            mmproj.is_string() ? mmproj.get<std::string>() : ""};
      continue;
    }
    const nlohmann::json from = value.is_object() ? value.value("from", nlohmann::json()) : nullptr;
    if (!from.is_string()) continue;
    ModelPreset& preset = models.presets[name];
    preset.from = from.get<std::string>();
    const nlohmann::json system = value.value("system", nlohmann::json());
    if (system.is_string()) preset.system = system.get<std::string>();
    preset.parameters = value.value("parameters", nlohmann::json::object());
    preset.messages = value.value("messages", nlohmann::json::array());
  }
  return models;
}

Status ModelRegistry::SaveUserModels(const UserModels& models) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [name, file] : models.files) {
    if (file.mmproj.empty()) {
      doc[name] = file.path.string();
    } else {
      doc[name] = {{"path", file.path.string()}, {"mmproj", file.mmproj.string()}};
    }
  }
  for (const auto& [name, preset] : models.presets) {
    doc[name] = {{"from", preset.from},
                 {"system", preset.system},
                 {"parameters", preset.parameters},
                 {"messages", preset.messages}};
  }
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(user_models_file_.parent_path()));
  return config::WriteFileAtomically(user_models_file_, doc.dump(2) + "\n", 0600);
}

}  // namespace zest::models
