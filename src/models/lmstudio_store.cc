#include "models/lmstudio_store.h"

#include <algorithm>

namespace zest::models {
namespace {

namespace fs = std::filesystem;

bool Plain(const fs::path& part) {
  const std::string s = part.string();
  return !s.empty() && s[0] != '.';
}

}  // namespace

std::vector<StoreFile> LmStudioStore::ListModelFiles() const {
  std::vector<StoreFile> out;
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) return out;
  // <publisher>/<repo>/<file> or <publisher>/<repo>/<folder>/<file>.
  for (auto it = fs::recursive_directory_iterator(root_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    if (!Plain(p.filename())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it.depth() >= 3) it.disable_recursion_pending();
    if (it.depth() < 2 || p.extension() != ".gguf") continue;
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) continue;  // follows links, as LM Studio's import makes
    const fs::path rel = p.lexically_relative(root_);
    auto part = rel.begin();
    StoreFile f;
    f.repo = part->string() + "/";
    f.repo += (++part)->string();
    f.path = fs::path(*++part).string();
    while (++part != rel.end()) f.path += "/" + part->string();
    f.file = p;
    f.size = fs::file_size(p, file_ec);
    if (file_ec) continue;
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const StoreFile& a, const StoreFile& b) {
    return a.repo != b.repo ? a.repo < b.repo : a.path < b.path;
  });
  return out;
}

}  // namespace zest::models
