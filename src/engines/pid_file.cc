#include "engines/pid_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <thread>

#include "core/private_dirs.h"

namespace zest::engines {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Result<std::string> ReadProcFile(pid_t pid, const char* name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + name, std::ios::binary);
  if (!in) return NotFound("no process " + std::to_string(pid));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Gone(pid_t pid) { return !ProcessStartTicks(pid).ok(); }

bool WaitGone(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!Gone(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The engine was started as the leader of its own process group; signal the
// whole group while that is still so (its helpers go with it), else the pid.
void SignalEngine(pid_t pid, int sig) {
  if (getpgid(pid) == pid) {
    kill(-pid, sig);
  } else {
    kill(pid, sig);
  }
}

bool SameProcess(pid_t pid, uint64_t start_ticks) {
  auto ticks = ProcessStartTicks(pid);
  return ticks.ok() && *ticks == start_ticks;
}

void RemoveFile(const fs::path& file) {
  std::error_code ignored;  // already gone is fine
  fs::remove(file, ignored);
}

ReapedEngine ReapOne(const fs::path& file, std::chrono::milliseconds grace) {
  ReapedEngine reaped;
  reaped.file = file;
  auto record = ReadPidFile(file);
  if (!record.ok()) {
    reaped.outcome = ReapedEngine::Outcome::kUnreadable;
    RemoveFile(file);
    return reaped;
  }
  reaped.record = *record;
  const PidRecord& r = reaped.record;
  if (r.owner_pid != 0 && SameProcess(r.owner_pid, r.owner_start_ticks)) {
    reaped.outcome = ReapedEngine::Outcome::kOwnerAlive;
    return reaped;
  }
  auto ticks = ProcessStartTicks(r.pid);
  auto argv = ProcessCommandLine(r.pid);
  if (!ticks.ok()) {
    reaped.outcome = ReapedEngine::Outcome::kGone;
  } else if (*ticks != r.start_ticks || !argv.ok() || *argv != r.argv) {
    reaped.outcome = ReapedEngine::Outcome::kReused;
  } else {
    SignalEngine(r.pid, SIGTERM);
    if (!WaitGone(r.pid, grace)) {
      reaped.forced = true;
      SignalEngine(r.pid, SIGKILL);
      if (!WaitGone(r.pid, std::chrono::seconds(2))) {
        reaped.outcome = ReapedEngine::Outcome::kKillFailed;
        return reaped;
      }
    }
    reaped.outcome = ReapedEngine::Outcome::kKilled;
  }
  RemoveFile(file);
  return reaped;
}

}  // namespace

Result<uint64_t> ProcessStartTicks(pid_t pid) {
  ZEST_ASSIGN_OR_RETURN(std::string stat, ReadProcFile(pid, "stat"));
  // "pid (comm) state ppid ...": comm may hold spaces and ')', so fields are
  // counted after the last ')'. State is field 3, starttime field 22.
  auto close_paren = stat.rfind(')');
  if (close_paren == std::string::npos)
    return NotFound("unreadable stat of " + std::to_string(pid));
  std::istringstream fields(stat.substr(close_paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3 && (field == "Z" || field == "X"))
      return NotFound(std::to_string(pid) + " has exited");
    if (i == 22) return static_cast<uint64_t>(std::stoull(field));
  }
  return NotFound("unreadable stat of " + std::to_string(pid));
}

Result<std::vector<std::string>> ProcessCommandLine(pid_t pid) {
  ZEST_ASSIGN_OR_RETURN(std::string raw, ReadProcFile(pid, "cmdline"));
  std::vector<std::string> argv;
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    argv.push_back(raw.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

Result<PidRecord> RecordFor(pid_t pid, const std::vector<std::string>& argv) {
  PidRecord record;
  record.pid = pid;
  record.argv = argv;
  ZEST_ASSIGN_OR_RETURN(record.start_ticks, ProcessStartTicks(pid));
  record.owner_pid = getpid();
  ZEST_ASSIGN_OR_RETURN(record.owner_start_ticks, ProcessStartTicks(record.owner_pid));
  return record;
}

fs::path PidFilePath(const fs::path& dir, pid_t pid) {
  return dir / (std::to_string(pid) + ".json");
}

Status WritePidFile(const fs::path& dir, const PidRecord& record) {
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
  json doc = {{"pid", record.pid},
              {"start_ticks", record.start_ticks},
              {"argv", record.argv},
              {"owner_pid", record.owner_pid},
              {"owner_start_ticks", record.owner_start_ticks}};
  std::string text = doc.dump() + "\n";
  fs::path file = PidFilePath(dir, record.pid);
  fs::path temp = file;
  temp += ".tmp";
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return IoError("cannot write " + temp.string() + ": " + std::strerror(errno));
  bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  written = fsync(fd) == 0 && written;
  close(fd);
  if (!written || rename(temp.c_str(), file.c_str()) != 0) {
    RemoveFile(temp);
    return IoError("cannot write " + file.string());
  }
  return Status::Ok();
}

Result<PidRecord> ReadPidFile(const fs::path& file) {
  std::ifstream in(file);
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return InvalidArgument(file.string() + ": not a pid file");
  try {
    PidRecord record;
    record.pid = doc.at("pid").get<pid_t>();
    record.start_ticks = doc.at("start_ticks").get<uint64_t>();
    record.argv = doc.at("argv").get<std::vector<std::string>>();
    record.owner_pid = doc.value("owner_pid", pid_t{0});
    record.owner_start_ticks = doc.value("owner_start_ticks", uint64_t{0});
    if (record.pid <= 1 || record.argv.empty()) {
      return InvalidArgument(file.string() + ": not a pid file");
    }
    return record;
  } catch (const json::exception& e) {
    return InvalidArgument(file.string() + ": " + e.what());
  }
}

const char* OutcomeName(ReapedEngine::Outcome outcome) {
  switch (outcome) {
    case ReapedEngine::Outcome::kKilled:
      return "killed";
    case ReapedEngine::Outcome::kKillFailed:
      return "still running after SIGKILL";
    case ReapedEngine::Outcome::kGone:
      return "already gone";
    case ReapedEngine::Outcome::kReused:
      return "pid reused by another process";
    case ReapedEngine::Outcome::kOwnerAlive:
      return "its zest still runs";
    case ReapedEngine::Outcome::kUnreadable:
      return "unreadable";
  }
  return "?";
}

std::vector<ReapedEngine> ReapStaleEngines(const fs::path& dir, std::chrono::milliseconds grace) {
  std::vector<ReapedEngine> out;
  std::error_code ec;
  std::vector<fs::path> files;  // listed first: reaping removes entries
  for (const auto& entry : fs::directory_iterator(dir, ec)) files.push_back(entry.path());
  for (const fs::path& file : files) {
    if (file.extension() == ".tmp") {
      RemoveFile(file);  // a write interrupted before its rename
      continue;
    }
    if (file.extension() != ".json") continue;
    out.push_back(ReapOne(file, grace));
  }
  return out;
}

}  // namespace zest::engines
