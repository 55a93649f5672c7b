#include "app/run_dir.h"

#include <sys/stat.h>

#include <cstdlib>

namespace zest::app {
namespace fs = std::filesystem;

Result<std::unique_ptr<RunDir>> RunDir::Create(const fs::path& base) {
  std::error_code ec;
  const fs::path parent = fs::is_directory(base, ec) ? base : fs::path("/tmp");
  std::string pattern = (parent / "zest-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return IoError("cannot create a run directory under " + parent.string());
  }
  ::chmod(pattern.c_str(), 0700);  // mkdtemp makes it 0700; a umask cannot widen it, but be sure
  return std::unique_ptr<RunDir>(new RunDir(pattern));
}

RunDir::~RunDir() {
  std::error_code ec;  // best effort: a leftover is a stale directory in /tmp, nothing more
  fs::remove_all(path_, ec);
}

}  // namespace zest::app
