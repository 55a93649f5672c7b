// `zest pull MODEL`: asks the server to download a model and shows its
// progress: a redrawn bar (bytes, speed, ETA) on a terminal, plain lines
// otherwise. Ctrl-C disconnects, which stops the server's download unless
// another pull still waits for it; the partial file stays for next time.
// `--with-draft` also pulls the usual draft model the catalog names for a
// catalog model, which `speculative = "auto"` then pairs with it.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/api_client.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "config/settings.h"
#include "models/catalog.h"

namespace zest::cli {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::atomic<bool> g_pull_interrupted{false};

void OnPullSigint(int) { g_pull_interrupted = true; }

// Speed over a sliding window of samples, for a steady ETA.
class ProgressView {
 public:
  explicit ProgressView(bool tty) : tty_(tty) {}

  void Update(const json& event) {
    std::string status = event.value("status", "");
    if (status != "downloading") {
      if (status == "resolving") std::fprintf(stderr, "resolving %s\n", Name().c_str());
      return;
    }
    std::string file = event.value("file", "");
    uint64_t completed = event.value("completed", uint64_t{0});
    uint64_t total = event.value("total", uint64_t{0});
    if (file != file_) StartFile(file, completed, event);
    Sample(completed);
    if (tty_) {
      DrawBar(completed, total);
    } else if (Clock::now() - last_line_ >= std::chrono::seconds(5) || completed == total) {
      if (completed == total && printed_done_) return;
      printed_done_ = completed == total;
      last_line_ = Clock::now();
      std::fprintf(stderr, "%s: %s / %s (%s/s)\n", file_.c_str(), HumanBytes(completed).c_str(),
                   HumanBytes(total).c_str(), HumanBytes(static_cast<uint64_t>(speed_)).c_str());
    }
  }

  void Finish() {
    if (tty_ && !file_.empty()) std::fprintf(stderr, "\n");
    file_.clear();
  }

  void set_name(std::string name) { name_ = std::move(name); }
  const std::string& Name() const { return name_; }

 private:
  void StartFile(const std::string& file, uint64_t completed, const json& event) {
    Finish();
    file_ = file;
    printed_done_ = false;
    window_start_ = Clock::now();
    window_bytes_ = completed;
    speed_ = 0;
    last_line_ = Clock::time_point{};
    int index = event.value("file_index", 0), count = event.value("file_count", 0);
    if (!tty_ || count > 1)
      std::fprintf(stderr, "pulling %s (%d/%d)\n", file.c_str(), index, count);
  }

  void Sample(uint64_t completed) {
    auto now = Clock::now();
    double elapsed = std::chrono::duration<double>(now - window_start_).count();
    if (elapsed >= 1.0) {
      double current =
          static_cast<double>(completed - std::min(completed, window_bytes_)) / elapsed;
      speed_ = speed_ == 0 ? current : 0.7 * speed_ + 0.3 * current;
      window_start_ = now;
      window_bytes_ = completed;
    }
  }

  void DrawBar(uint64_t completed, uint64_t total) {
    constexpr int kWidth = 30;
    double fraction = total ? static_cast<double>(completed) / static_cast<double>(total) : 1.0;
    int filled = static_cast<int>(fraction * kWidth);
    std::string bar(filled, '#');
    bar.resize(kWidth, '.');
    std::string eta = "--";
    if (speed_ > 0 && total > completed) {
      eta = HumanDuration(static_cast<double>(total - completed) / speed_);
    }
    std::fprintf(stderr, "\r\033[K%s [%s] %3d%% %s/%s %s/s ETA %s", Short(file_).c_str(),
                 bar.c_str(), static_cast<int>(fraction * 100), HumanBytes(completed).c_str(),
                 HumanBytes(total).c_str(), HumanBytes(static_cast<uint64_t>(speed_)).c_str(),
                 eta.c_str());
    std::fflush(stderr);
  }

  static std::string Short(const std::string& file) {
    return file.size() <= 32 ? file : "..." + file.substr(file.size() - 29);
  }

  const bool tty_;
  std::string name_;
  std::string file_;
  bool printed_done_ = false;
  Clock::time_point window_start_{};
  uint64_t window_bytes_ = 0;
  double speed_ = 0;
  Clock::time_point last_line_{};
};

int Pull(const std::string& model) {
  struct sigaction sa {};
  sa.sa_handler = OnPullSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  ApiClient client(ServerUrlFromEnv(config::ProcessEnv("ZEST_HOST").value_or("").c_str()));
  ProgressView view(::isatty(STDERR_FILENO) == 1);
  view.set_name(model);
  std::string pulled;
  json body = {{"model", model}, {"stream", true}};
  Status st = client.Stream(
      "/api/v1/pull", body,
      [&](const json& event) {
        if (event.value("status", "") == "success") {
          pulled = event.value("model", model);
          return;
        }
        view.Update(event);
      },
      &g_pull_interrupted);
  view.Finish();
  if (st.code() == ErrorCode::kCancelled) {
    std::fprintf(stderr, "stopped; run `zest pull %s` again to resume\n", model.c_str());
    return 130;
  }
  if (!st.ok()) {
    std::fprintf(stderr, "zest: %s\n", st.message().c_str());
    return 1;
  }
  if (pulled.empty()) {
    std::fprintf(stderr, "zest: the server ended the pull without a result\n");
    return 1;
  }
  std::printf("pulled %s\n", pulled.c_str());
  return 0;
}

// The model, then the usual draft the catalog names for it. The catalog is
// the one compiled into zest, the server's too.
int PullWithDraft(const std::string& model) {
  const models::CatalogEntry* entry = models::Catalog::Builtin().Find(model);
  if (entry == nullptr || entry->draft.empty()) {
    std::fprintf(stderr,
                 "zest: --with-draft: the catalog names no draft model for '%s' (`zest list "
                 "--all` shows catalog names); pull a draft by name and set the model's "
                 "`draft` option instead\n",
                 model.c_str());
    return 2;
  }
  if (int rc = Pull(model); rc != 0) return rc;
  if (int rc = Pull(entry->draft); rc != 0) return rc;
  std::printf("%s drafts for %s (speculative = \"auto\" pairs them)\n", entry->draft.c_str(),
              entry->name.c_str());
  return 0;
}

}  // namespace

void AddPullCommand(CLI::App& app, Action* action) {
  auto* cmd = app.add_subcommand("pull",
                                 "download a model from Hugging Face: a catalog name, "
                                 "org/repo[:QUANT] or hf.co/org/repo/file.gguf");
  auto model = std::make_shared<std::string>();
  cmd->add_option("model", *model, "what to pull")->required();
  auto with_draft = std::make_shared<bool>(false);
  cmd->add_flag("--with-draft", *with_draft,
                "also pull the draft model the catalog names for it (speculative decoding)");
  cmd->callback([action, model, with_draft] {
    *action = [model, with_draft] { return *with_draft ? PullWithDraft(*model) : Pull(*model); };
  });
}

}  // namespace zest::cli
