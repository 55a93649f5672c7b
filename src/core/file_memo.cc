#include "core/file_memo.h"

#include <system_error>

namespace zest {

std::optional<FileIdentity> IdentityOf(const std::filesystem::path& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return std::nullopt;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return std::nullopt;
  return FileIdentity{path.string(), size, mtime.time_since_epoch().count()};
}

}  // namespace zest
