#include "scheduler/session_files.h"

#include <algorithm>
#include <cctype>
#include <system_error>

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "session-", kSuffix = ".bin";

bool IsSessionFileName(const std::string& name) {
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  std::string_view key(name);
  key = key.substr(kPrefix.size(), key.size() - kPrefix.size() - kSuffix.size());
  return std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

}  // namespace

std::string SessionFileName(std::string_view session) {
  if (session.empty() || session.size() > 128 ||
      !std::all_of(session.begin(), session.end(),
                   [](unsigned char c) { return std::isxdigit(c) != 0; })) {
    return "";
  }
  return std::string(kPrefix) + std::string(session) + std::string(kSuffix);
}

std::vector<SessionFile> ListSessionFiles(const fs::path& dir) {
  std::vector<SessionFile> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    // symlink_status: a link an engine planted is neither counted nor followed.
    std::error_code st;
    if (!fs::is_regular_file(entry.symlink_status(st)) ||
        !IsSessionFileName(entry.path().filename().string())) {
      continue;
    }
    SessionFile file{entry.path(), entry.file_size(st), entry.last_write_time(st)};
    if (!st) out.push_back(std::move(file));
  }
  return out;
}

std::vector<fs::path> OverBudget(std::vector<SessionFile> files, uint64_t budget_bytes) {
  std::sort(files.begin(), files.end(),
            [](const SessionFile& a, const SessionFile& b) { return a.used < b.used; });
  std::vector<fs::path> out;
  // A file larger than the budget on its own goes first, however recent:
  // taking the others out for it would empty the tier and still not fit.
  std::erase_if(files, [&](const SessionFile& f) {
    if (f.bytes <= budget_bytes) return false;
    out.push_back(f.path);
    return true;
  });
  uint64_t total = 0;
  for (const SessionFile& f : files) total += f.bytes;
  for (const SessionFile& f : files) {
    if (total <= budget_bytes) break;
    out.push_back(f.path);
    total -= f.bytes;
  }
  return out;
}

int TrimSessionFiles(const fs::path& root, uint64_t budget_bytes) {
  std::vector<SessionFile> all;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(root, ec)) {
    std::error_code st;
    if (!fs::is_directory(dir.symlink_status(st))) continue;
    std::vector<SessionFile> files = ListSessionFiles(dir.path());
    all.insert(all.end(), files.begin(), files.end());
  }
  int removed = 0;
  for (const fs::path& path : OverBudget(std::move(all), budget_bytes)) {
    std::error_code rm;
    removed += fs::remove(path, rm) ? 1 : 0;
  }
  return removed;
}

SessionFilesUse SessionFilesIn(const fs::path& dir) {
  SessionFilesUse use;
  for (const SessionFile& f : ListSessionFiles(dir)) {
    use.bytes += f.bytes;
    ++use.files;
  }
  return use;
}

}  // namespace zest::scheduler
