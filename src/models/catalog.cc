#include "models/catalog.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "config/model_settings.h"
#include "core/strings.h"
#include "models/catalog_data.h"
#include "models/hf_store.h"

namespace zest::models {
namespace {

using nlohmann::json;

const std::set<std::string> kLabels = {"chat",      "reasoning",     "coding",
                                       "vision",    "tool-calling",  "embeddings",
                                       "reranking", "transcription", "tts"};
const std::set<std::string> kRecipes = {"llamacpp", "whispercpp", "flm", "ryzenai"};

// Reads one entry, naming it and the field in every error.
class EntryReader {
 public:
  EntryReader(const json& j, size_t index) : j_(j) {
    prefix_ = "catalog entry " + std::to_string(index);
    auto name = j.find("name");
    if (name != j.end() && name->is_string()) prefix_ += " ('" + name->get<std::string>() + "')";
  }

  Status Error(const std::string& field, const std::string& what) const {
    return InvalidArgument(prefix_ + ": field '" + field + "' " + what);
  }

  Status String(const char* field, bool required, std::string* out) const {
    auto it = j_.find(field);
    if (it == j_.end() || it->is_null()) {
      return required ? Error(field, "is required") : Status::Ok();
    }
    if (!it->is_string()) return Error(field, "must be a string");
    *out = it->get<std::string>();
    if (required && out->empty()) return Error(field, "must not be empty");
    return Status::Ok();
  }

  Status Uint(const char* field, uint64_t* out) const {
    auto it = j_.find(field);
    if (it == j_.end()) return Status::Ok();
    if (!it->is_number_unsigned()) return Error(field, "must be a non-negative integer");
    *out = it->get<uint64_t>();
    return Status::Ok();
  }

  Status Labels(std::vector<std::string>* out) const {
    auto it = j_.find("labels");
    if (it == j_.end()) return Status::Ok();
    if (!it->is_array()) return Error("labels", "must be an array of strings");
    for (const json& l : *it) {
      if (!l.is_string() || !kLabels.contains(l.get<std::string>())) {
        return Error("labels", "has an unknown label " + l.dump());
      }
      out->push_back(l.get<std::string>());
    }
    return Status::Ok();
  }

 private:
  const json& j_;
  std::string prefix_;
};

Status ValidateEntry(const EntryReader& r, const CatalogEntry& e) {
  if (e.name.size() > 128 || !std::all_of(e.name.begin(), e.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
      })) {
    return r.Error("name", "must be 1-128 characters of [A-Za-z0-9._-]");
  }
  if (!HfStore::ValidRepoId(e.repo)) return r.Error("repo", "is not a valid repo id (org/name)");
  if (e.quant.empty() == e.file.empty())
    return r.Error("quant", "or 'file' must be given (one of them)");
  if (!e.file.empty() && !HfStore::ValidRepoPath(e.file))
    return r.Error("file", "is not a safe path");
  if (!e.mmproj.empty() && !HfStore::ValidRepoPath(e.mmproj)) {
    return r.Error("mmproj", "is not a safe path");
  }
  if (!e.flm.empty() && !config::ValidFlmTag(e.flm)) {
    return r.Error("flm", "is not a FastFlowLM model tag (such as \"llama3.2:1b\")");
  }
  if (!kRecipes.contains(e.recipe))
    return r.Error("recipe", "must be one of llamacpp, whispercpp, flm, ryzenai");
  return Status::Ok();
}

Result<CatalogEntry> ParseEntry(const json& j, size_t index) {
  EntryReader r(j, index);
  if (!j.is_object()) return r.Error("(entry)", "must be an object");
  CatalogEntry e;
  ZEST_RETURN_IF_ERROR(r.String("name", true, &e.name));
  ZEST_RETURN_IF_ERROR(r.String("repo", true, &e.repo));
  ZEST_RETURN_IF_ERROR(r.String("quant", false, &e.quant));
  ZEST_RETURN_IF_ERROR(r.String("file", false, &e.file));
  ZEST_RETURN_IF_ERROR(r.String("mmproj", false, &e.mmproj));
  ZEST_RETURN_IF_ERROR(r.String("draft", false, &e.draft));
  ZEST_RETURN_IF_ERROR(r.String("flm", false, &e.flm));
  ZEST_RETURN_IF_ERROR(r.Labels(&e.labels));
  ZEST_RETURN_IF_ERROR(r.String("recipe", true, &e.recipe));
  ZEST_RETURN_IF_ERROR(r.Uint("size_bytes", &e.size_bytes));
  uint64_t ctx = 0;
  ZEST_RETURN_IF_ERROR(r.Uint("suggested_ctx", &ctx));
  if (ctx > UINT32_MAX) return r.Error("suggested_ctx", "is too large");
  e.suggested_ctx = static_cast<uint32_t>(ctx);
  ZEST_RETURN_IF_ERROR(r.String("description", false, &e.description));
  ZEST_RETURN_IF_ERROR(ValidateEntry(r, e));
  return e;
}

// Names unique (case-insensitively) and drafts naming other entries.
Status CheckReferences(const std::vector<CatalogEntry>& entries) {
  std::set<std::string> names;
  for (const CatalogEntry& e : entries) {
    if (!names.insert(AsciiLower(e.name)).second) {
      return InvalidArgument("catalog entry '" + e.name + "': field 'name' is a duplicate");
    }
  }
  for (const CatalogEntry& e : entries) {
    if (!e.draft.empty() &&
        (!names.contains(AsciiLower(e.draft)) || AsciiLower(e.draft) == AsciiLower(e.name))) {
      return InvalidArgument("catalog entry '" + e.name +
                             "': field 'draft' names no other entry ('" + e.draft + "')");
    }
  }
  return Status::Ok();
}

}  // namespace

const Catalog& Catalog::Builtin() {
  // Parsed once; the embedded file is checked by catalog_test, so a failure
  // here means a broken build and zest runs with an empty catalog.
  static const Catalog kBuiltin = [] {
    Result<Catalog> parsed = Parse(BuiltinCatalogJson());
    if (!parsed.ok()) {
      spdlog::error("built-in catalog: {}", parsed.status().message());
      return Catalog();
    }
    return std::move(parsed).value();
  }();
  return kBuiltin;
}

Result<Catalog> Catalog::Parse(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("catalog: not valid JSON");
  if (!doc.is_object() || !doc.contains("models") || !doc["models"].is_array()) {
    return InvalidArgument("catalog: field 'models' must be an array");
  }
  Catalog catalog;
  size_t index = 0;
  for (const json& j : doc["models"]) {
    ZEST_ASSIGN_OR_RETURN(CatalogEntry entry, ParseEntry(j, index++));
    catalog.entries_.push_back(std::move(entry));
  }
  ZEST_RETURN_IF_ERROR(CheckReferences(catalog.entries_));
  return catalog;
}

const CatalogEntry* Catalog::Find(std::string_view name) const {
  std::string wanted = AsciiLower(name);
  for (const CatalogEntry& e : entries_) {
    if (AsciiLower(e.name) == wanted) return &e;
  }
  return nullptr;
}

}  // namespace zest::models
