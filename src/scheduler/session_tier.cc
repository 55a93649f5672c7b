#include "scheduler/session_tier.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "engines/llama_slots.h"
#include "http/upstream_client.h"
#include "scheduler/session_files.h"
#include "scheduler/slot_cache.h"
#include "scheduler/slot_files.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxReplyBytes = 1u << 20;
// How often a stop looks whether the writes behind it waits for are done
// (each is a slot save: tens of milliseconds).
constexpr std::chrono::milliseconds kWritePoll{5};

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// Sends `body` to `path` on the engine, cut off at `deadline`; the reply as
// JSON when it answers 200.
asio::awaitable<Result<json>> Replay(fs::path socket, std::string path, std::string body,
                                     Clock::time_point deadline) {
  auto executor = co_await asio::this_coro::executor;
  const http::UpstreamDeadline cutoff(executor, deadline);
  http::UpstreamRequest request;
  request.method = "POST";
  request.target = std::move(path);
  request.headers = {{"Content-Type", "application/json"}};
  request.body = std::move(body);
  request.canceller = cutoff.canceller();
  // Arguments named, not temporaries inside co_await (GCC 12 miscompiles those).
  const std::string endpoint = socket.string();
  auto response = co_await http::SendUpstream(executor, endpoint, std::move(request));
  Result<std::string> reply = response.status();
  if (response.ok()) reply = co_await (*response)->ReadAll(kMaxReplyBytes);
  if (!reply.ok()) co_return reply.status();
  if ((*response)->status() != 200) {
    co_return EngineFailed("engine answered " + std::to_string((*response)->status()));
  }
  json answer = json::parse(*reply, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) co_return EngineFailed("the engine's answer is not JSON");
  co_return answer;
}

// A file the engine wrote, made the owner's alone (and, with `touch`,
// marked recently used); its size, 0 when it is not a regular file. Done on
// one descriptor opened without following a link: the engine can write the
// directory, so a name checked first could be a link by the time of a chmod.
uint64_t Seal(const fs::path& file, bool touch = false) {
  // (Not blocking on a FIFO the engine put in the file's place, either.)
  const int fd = OpenEngineFile(file, O_RDONLY);
  if (fd < 0) return 0;
  struct stat st {};
  const bool sealed = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::fchmod(fd, 0600) == 0 &&
                      (!touch || ::futimens(fd, nullptr) == 0);
  ::close(fd);
  return sealed ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

SessionTier::SessionTier(SessionTierOptions options, PoolEvents* events)
    : options_(std::move(options)),
      dirs_(options_.slot_root, {}),
      events_(events),
      prompts_(options_.prompt_budget_bytes) {}

fs::path SessionTier::DirOf(const Instance& instance) const {
  // A replica's engine has no slot directory, or the handoff one.
  fs::path dir = dirs_.Saved(instance.model());
  return !dir.empty() && instance.slot_dir == dir ? dir : fs::path();
}

void SessionTier::Remember(const Instance& instance, const std::string& session, std::string path,
                           std::string body) {
  if (!enabled() || session.empty() || DirOf(instance).empty()) return;
  prompts_.Remember(instance.model(), {.session = session,
                                       .engine = instance.pid(),
                                       .path = std::move(path),
                                       .body = std::move(body)});
}

std::set<int> SessionTier::Claims::Of(pid_t engine) const {
  MutexLock lock(mu_);
  auto it = slots_.find(engine);
  return it == slots_.end() ? std::set<int>() : it->second;
}

struct SessionTier::Claims::Held {
  std::shared_ptr<Claims> claims;
  pid_t engine;
  int slot;
  Held(std::shared_ptr<Claims> c, pid_t e, int s) : claims(std::move(c)), engine(e), slot(s) {}
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  ~Held() {
    MutexLock lock(claims->mu_);
    auto it = claims->slots_.find(engine);
    if (it == claims->slots_.end()) return;
    it->second.erase(slot);
    if (it->second.empty()) claims->slots_.erase(it);
  }
};

SessionTier::SlotClaim SessionTier::Claims::Take(const std::shared_ptr<Claims>& claims,
                                                 pid_t engine, int slot) {
  {
    MutexLock lock(claims->mu_);
    if (!claims->slots_[engine].insert(slot).second) return nullptr;
  }
  return std::make_shared<Held>(claims, engine, slot);
}

// The session's file, when it is to be restored into `instance`: it has
// one and has not been served there yet (the engine holds it then, in a
// slot or its RAM cache, fresher than the file). Empty when not.
fs::path SessionTier::FileToRestore(const Instance& instance, const std::string& session) {
  const fs::path dir = enabled() ? DirOf(instance) : fs::path();
  const std::string name = SessionFileName(session);
  if (dir.empty() || name.empty()) return {};
  if (prompts_.EngineOf(instance.model(), session) == instance.pid()) return {};
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(dir / name, ec))) return {};
  return dir / name;
}

asio::awaitable<SessionTier::SlotClaim> SessionTier::RestoreFor(std::shared_ptr<Instance> instance,
                                                                std::string session) {
  if (FileToRestore(*instance, session).empty()) co_return nullptr;
  const pid_t engine = instance->pid();
  fs::path socket = instance->socket();  // named: no temporaries in co_await
  // Another restore may take the slot chosen while this one listed them:
  // then it lists again without it. Each miss is one more slot held, so
  // this ends when the engine has no idle slot left.
  SlotClaim claim;
  int slot = -1;
  while (!claim) {
    Result<int> target = co_await RestoreTarget(socket, claims_->Of(engine));
    if (!target.ok()) co_return nullptr;  // every slot busy or held: the prompt is read again
    slot = *target;
    claim = Claims::Take(claims_, engine, slot);
  }
  const bool restored = co_await RestoreOne(instance, std::move(session), slot);
  co_return restored ? claim : nullptr;
}

asio::awaitable<bool> SessionTier::RestoreInto(std::shared_ptr<Instance> instance,
                                               std::string session, int slot) {
  if (FileToRestore(*instance, session).empty()) co_return false;
  co_return co_await RestoreOne(std::move(instance), std::move(session), slot);
}

asio::awaitable<bool> SessionTier::RestoreOne(std::shared_ptr<Instance> instance,
                                              std::string session, int slot) {
  const fs::path file = FileToRestore(*instance, session);
  const std::string& model = instance->model();
  fs::path socket = instance->socket();  // named: no temporaries in co_await
  const auto start = Clock::now();
  Status restored = co_await RestoreSlot(socket, slot, file.filename().string());
  // Sealed again, and marked recently used for the disk budget's order.
  const uint64_t bytes = restored.ok() ? Seal(file, /*touch=*/true) : 0;
  {
    MutexLock lock(mu_);
    ++(restored.ok() ? counts_[model].restores : counts_[model].failed_restores);
  }
  if (events_) events_->SessionCacheRestored(model, restored.ok(), bytes);
  if (!restored.ok()) {
    spdlog::warn("cannot restore session {} of '{}': {}; its prompt is read again",
                 session.substr(0, 8), model, restored.message());
    co_return false;
  }
  spdlog::info("restored session {} of '{}' into slot {} ({:.1f} MiB) in {:.0f} ms",
               session.substr(0, 8), model, slot, MiB(bytes), MsSince(start));
  co_return true;
}

asio::awaitable<uint64_t> SessionTier::SaveSlotAs(std::shared_ptr<Instance> instance, int slot,
                                                  std::string name) {
  fs::path socket = instance->socket();  // named: no temporaries in co_await
  Status saved = co_await SaveSlot(socket, slot, name);
  const uint64_t bytes = saved.ok() ? Seal(DirOf(*instance) / name) : 0;
  if (bytes == 0) {
    spdlog::warn("a session of '{}' not saved: {}", instance->model(),
                 saved.ok() ? "no file" : saved.message());
    co_return 0;
  }
  {
    MutexLock lock(mu_);
    ++counts_[instance->model()].saves;
  }
  if (events_) events_->SessionCacheSaved(instance->model(), bytes);
  co_return bytes;
}

asio::awaitable<void> SessionTier::WriteBehind(std::shared_ptr<Instance> instance,
                                               std::string session, uint64_t tokens) {
  const fs::path dir = enabled() ? DirOf(*instance) : fs::path();
  const std::string name = SessionFileName(session);
  const std::string& model = instance->model();
  // Taken before the first suspension: a later turn may come meanwhile.
  const uint64_t turn = prompts_.TurnOf(model, session);
  if (dir.empty() || name.empty() || turn == 0 ||
      tokens < static_cast<uint64_t>(options_.min_tokens))
    co_return;
  const auto start = Clock::now();
  // Counted until the save ends, however it ends.
  const std::shared_ptr<void> writing = Writes::Start(writes_, instance->pid());
  fs::path socket = instance->socket();  // named: no temporaries in co_await
  Result<int> slot = co_await SlotHolding(socket, tokens);
  if (!slot.ok()) {  // another request has its slot: its state is in the RAM cache
    spdlog::debug("session {} of '{}' not written behind: {}", session.substr(0, 8), model,
                  slot.status().message());
    co_return;
  }
  const uint64_t bytes = co_await SaveSlotAs(instance, *slot, name);
  if (bytes == 0) co_return;
  prompts_.MarkSaved(model, session, turn);
  spdlog::debug("wrote session {} of '{}' behind: {} tokens, {:.1f} MiB in {:.0f} ms",
                session.substr(0, 8), model, tokens, MiB(bytes), MsSince(start));
  if (int removed = TrimSessionFiles(options_.slot_root, options_.disk_budget_bytes); removed > 0)
    spdlog::info("removed {} least recently used session file(s) over the budget", removed);
  if (events_) events_->SessionCacheDisk(model, SessionFilesIn(dir).bytes);
}

bool SessionTier::Writes::Any(pid_t engine) const {
  MutexLock lock(mu_);
  return in_flight_.contains(engine);
}

std::shared_ptr<void> SessionTier::Writes::Start(const std::shared_ptr<Writes>& writes,
                                                 pid_t engine) {
  {
    MutexLock lock(writes->mu_);
    ++writes->in_flight_[engine];
  }
  return std::shared_ptr<void>(nullptr, [writes, engine](void*) {
    MutexLock lock(writes->mu_);
    if (--writes->in_flight_[engine] <= 0) writes->in_flight_.erase(engine);
  });
}

asio::awaitable<void> SessionTier::WaitForWrites(pid_t engine, Clock::time_point deadline) {
  auto executor = co_await asio::this_coro::executor;
  while (Clock::now() < deadline && writes_->Any(engine)) {
    asio::steady_timer pause(executor, kWritePoll);
    co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> SessionTier::SaveSessions(std::shared_ptr<Instance> instance, bool hurried) {
  const fs::path dir = enabled() ? DirOf(*instance) : fs::path();
  if (dir.empty() || !instance->Alive() || instance->in_flight.load() > 0) co_return;
  const auto start = Clock::now();
  const auto deadline = start + (hurried ? options_.hurried_save_budget : options_.save_budget);
  co_await WaitForWrites(instance->pid(), deadline);
  std::vector<RememberedPrompt> served = prompts_.ServedBy(instance->model(), instance->pid());
  const std::size_t written_behind = static_cast<std::size_t>(std::count_if(
      served.begin(), served.end(), [](const RememberedPrompt& p) { return p.saved; }));
  std::erase_if(served, [](const RememberedPrompt& p) { return p.saved; });
  if (served.empty()) {
    if (written_behind > 0) {
      spdlog::info("all {} conversation(s) of '{}' were written behind: nothing to replay",
                   written_behind, instance->model());
    }
    prompts_.Forget(instance->model(), instance->pid());
    co_return;
  }
  // The replays fill slots zest did not place for a key (slot_owners.h).
  instance->slot_owners.ForgetAll();
  int saved = 0;
  std::size_t tried = 0;
  SavedSession total;
  for (RememberedPrompt& prompt : served) {
    if (Clock::now() >= deadline) break;
    ++tried;
    // Under min_tokens bytes it is under min_tokens tokens: not worth a replay.
    if (prompt.body.size() < static_cast<std::size_t>(options_.min_tokens)) continue;
    std::shared_ptr<Instance> engine = instance;  // named: no temporaries in co_await
    const auto cutoff = std::min(deadline, Clock::now() + options_.replay_budget);
    const SavedSession one = co_await SaveOne(std::move(engine), std::move(prompt), cutoff);
    saved += one.bytes > 0 ? 1 : 0;
    total.bytes += one.bytes;
    total.tokens += one.tokens;
  }
  // What the restores save, to set against their times in the log: this
  // engine's measured prefill speed over the tokens kept.
  std::string prefill;
  if (std::optional<double> ms = instance->PromptMsPerToken(); ms && total.tokens > 0) {
    prefill = fmt::format("; reading their {} tokens again: ~{:.0f} ms at {:.2f} ms/token",
                          total.tokens, *ms * total.tokens, *ms);
  }
  spdlog::info("saved {} of {} conversation(s) of '{}' ({:.1f} MiB) in {:.0f} ms{}{}{}", saved,
               served.size(), instance->model(), MiB(total.bytes), MsSince(start), prefill,
               tried < served.size() ? " (out of time for the rest)" : "",
               written_behind > 0 ? fmt::format("; {} more written behind", written_behind) : "");
  // This engine's turns are in its files now; its pid may be another's soon.
  prompts_.Forget(instance->model(), instance->pid());
  if (int removed = TrimSessionFiles(options_.slot_root, options_.disk_budget_bytes); removed > 0)
    spdlog::info("removed {} least recently used session file(s) over the budget", removed);
  if (events_) events_->SessionCacheDisk(instance->model(), SessionFilesIn(dir).bytes);
}

asio::awaitable<SessionTier::SavedSession> SessionTier::SaveOne(std::shared_ptr<Instance> instance,
                                                                RememberedPrompt prompt,
                                                                Clock::time_point deadline) {
  const std::string& model = instance->model();
  const std::string id = prompt.session.substr(0, 8);
  const std::string name = SessionFileName(prompt.session);
  Result<std::string> body = engines::ReplayBody(prompt.body);
  if (name.empty() || !body.ok()) co_return SavedSession{};
  const auto start = Clock::now();
  fs::path socket = instance->socket();  // named: no temporaries in co_await
  Result<json> answer = co_await Replay(socket, std::move(prompt.path), std::move(*body), deadline);
  if (!answer.ok()) {
    spdlog::info("session {} of '{}' not saved: its replay failed: {}", id, model,
                 answer.status().message());
    co_return SavedSession{};
  }
  const json usage = answer->value("usage", json::object());
  const json timings = answer->value("timings", json::object());
  const int tokens = usage.value("prompt_tokens", 0);
  if (tokens < options_.min_tokens) co_return SavedSession{};  // cheap to read again
  if (Clock::now() >= deadline) co_return SavedSession{};      // a save is not free either
  Result<int> slot = co_await NewestSlot(socket);
  if (!slot.ok()) {
    spdlog::warn("session {} of '{}' not saved: {}", id, model, slot.status().message());
    co_return SavedSession{};
  }
  const uint64_t bytes = co_await SaveSlotAs(instance, *slot, name);
  if (bytes == 0) co_return SavedSession{};
  spdlog::debug("saved session {} of '{}': {} tokens ({} evaluated again), {:.1f} MiB in {:.0f} ms",
                id, model, tokens, timings.value("prompt_n", -1), MiB(bytes), MsSince(start));
  co_return SavedSession{.bytes = bytes, .tokens = tokens};
}

SessionTierStats SessionTier::StatsOf(const std::string& model) const {
  SessionTierStats stats;
  {
    MutexLock lock(mu_);
    if (auto it = counts_.find(model); it != counts_.end()) stats = it->second;
  }
  stats.sessions = prompts_.Count(model);
  if (fs::path dir = dirs_.Saved(model); !dir.empty()) {
    SessionFilesUse use = SessionFilesIn(dir);  // files from earlier runs too
    stats.disk_bytes = use.bytes;
    stats.files = use.files;
  }
  return stats;
}

}  // namespace zest::scheduler
