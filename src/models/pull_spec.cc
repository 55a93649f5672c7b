#include "models/pull_spec.h"

#include <algorithm>
#include <cctype>

#include "core/strings.h"
#include "models/hf_store.h"

namespace zest::models {
namespace {

// The store names unsloth's "UD-Q4_K_XL" files by their ggml label alone.
std::string NormalizeQuant(std::string_view quant) {
  std::string q = AsciiUpper(quant);
  if (q.starts_with("UD-")) q.erase(0, 3);
  return q;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string Join(const std::vector<std::string>& parts, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < parts.size(); ++i) out += (i > from ? "/" : "") + parts[i];
  return out;
}

bool ValidRevision(std::string_view rev) {
  if (rev.empty() || rev.size() > 128 || rev == "." || rev == "..") return false;
  return std::all_of(rev.begin(), rev.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

Status CheckRepoAndFile(const PullSpec& spec) {
  if (!HfStore::ValidRepoId(spec.repo)) {
    return InvalidArgument("'" + spec.repo + "' is not a valid Hugging Face repo id (org/name)");
  }
  if (!ValidRevision(spec.revision))
    return InvalidArgument("invalid revision '" + spec.revision + "'");
  for (const std::string* p : {&spec.file, &spec.mmproj}) {
    if (!p->empty() && !HfStore::ValidRepoPath(*p)) {
      return InvalidArgument("'" + *p + "' is not a safe path inside a repo");
    }
  }
  return Status::Ok();
}

// "org/repo[:QUANT]" or "org/repo/path..." or "org/repo/resolve/REV/path...".
Result<PullSpec> ParseRepoSegments(const std::vector<std::string>& seg) {
  PullSpec spec;
  if (seg.size() < 2) return InvalidArgument("expected org/repo");
  std::string name = seg[1];
  if (seg.size() == 2) {
    // "repo@REVISION" or "repo:QUANT@REVISION": a pinned commit, branch or tag.
    if (std::size_t at = name.find('@'); at != std::string::npos) {
      spec.revision = name.substr(at + 1);
      name.resize(at);
    }
    if (std::size_t colon = name.find(':'); colon != std::string::npos) {
      spec.quant = NormalizeQuant(name.substr(colon + 1));
      name.resize(colon);
      if (spec.quant.empty()) return InvalidArgument("empty quantization after ':'");
    }
  } else if (seg[2] == "resolve" || seg[2] == "blob") {
    if (seg.size() < 5) return InvalidArgument("expected org/repo/resolve/REVISION/FILE");
    spec.revision = seg[3];
    spec.file = Join(seg, 4);
  } else {
    spec.file = Join(seg, 2);
  }
  spec.repo = seg[0] + "/" + name;
  ZEST_RETURN_IF_ERROR(CheckRepoAndFile(spec));
  return spec;
}

Result<PullSpec> FromCatalog(std::string_view text, const Catalog* catalog) {
  std::string name(text);
  std::string quant;
  if (std::size_t colon = name.find(':'); colon != std::string::npos) {
    quant = NormalizeQuant(name.substr(colon + 1));
    name.resize(colon);
  }
  const CatalogEntry* entry = catalog ? catalog->Find(name) : nullptr;
  if (entry == nullptr) {
    return NotFound("'" + name + "' is not in the catalog; pull a Hugging Face repo as org/name");
  }
  PullSpec spec;
  spec.repo = entry->repo;
  spec.catalog_name = entry->name;
  spec.quant = quant.empty() ? NormalizeQuant(entry->quant) : quant;
  spec.file = quant.empty() ? entry->file : "";
  spec.mmproj = entry->mmproj;
  ZEST_RETURN_IF_ERROR(CheckRepoAndFile(spec));
  return spec;
}

}  // namespace

Result<PullSpec> ParsePullSpec(std::string_view spec, const Catalog* catalog) {
  std::string text(spec);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
  if (text.empty()) return InvalidArgument("no model given");
  if (std::size_t q = text.find('?'); q != std::string::npos) text.resize(q);
  bool had_scheme = false;
  for (std::string_view scheme : {"https://", "http://"}) {
    if (text.starts_with(scheme)) {
      text.erase(0, scheme.size());
      had_scheme = true;
    }
  }
  bool had_host = false;
  for (std::string_view host : {"hf.co/", "huggingface.co/", "www.huggingface.co/"}) {
    if (text.starts_with(host)) {
      text.erase(0, host.size());
      had_host = true;
      break;
    }
  }
  if (had_scheme && !had_host) return InvalidArgument("only huggingface.co URLs can be pulled");
  if (!had_host && text.find('/') == std::string::npos) return FromCatalog(text, catalog);
  return ParseRepoSegments(Split(text, '/'));
}

}  // namespace zest::models
