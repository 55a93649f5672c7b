#include "engines/tts_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "core/strings.h"
#include "engines/process.h"

namespace zest::engines {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::atomic<int> g_signal{0};
// Set when the main loop stops because a llama-server of an OuteTTS model
// died: the runs still busy with the surviving one give up at once instead
// of at their deadline, so the instance exits and zest restarts it.
std::atomic<bool> g_stopping{false};

void OnSignal(int sig) { g_signal = sig; }

constexpr size_t kMaxHead = 16 * 1024;
constexpr size_t kMaxBody = 1024 * 1024;
constexpr uint64_t kMaxWavBytes = 512ull * 1024 * 1024;
constexpr int kDefaultTimeoutS = 300;
constexpr int kLoadTimeoutS = 600;  // both llama-servers of an OuteTTS model
constexpr int kReadTimeoutS = 10;

int ListenUnix(const fs::path& path) {
  sockaddr_un addr{};
  if (path.native().size() >= sizeof(addr.sun_path)) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::chmod(path.c_str(), 0600) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Internal Server Error";
  }
}

void Answer(int fd, int status, std::string_view content_type, std::string_view body) {
  std::ostringstream head;
  head << "HTTP/1.1 " << status << ' ' << Reason(status) << "\r\nContent-Type: " << content_type
       << "\r\nContent-Length: " << body.size() << "\r\nConnection: close\r\n\r\n";
  SendAll(fd, head.str());
  SendAll(fd, body);
}

// `message` is for the API client; `detail` (the engine's own output) only
// for zest's log: LlamaTtsAdapter::ReadSpeech logs it and passes it on to
// nobody, since engine output can hold paths and text of other requests.
void AnswerError(int fd, int status, const std::string& message, const std::string& detail = "") {
  nlohmann::json error = {{"message", message}};
  if (!detail.empty()) error["detail"] = detail;
  Answer(fd, status, "application/json", nlohmann::json{{"error", error}}.dump());
}

struct HttpRequest {
  std::string method;
  std::string path;
  std::string body;
};

// One request, read whole; false when the client sent none we can read.
bool ReadRequest(int fd, HttpRequest& out) {
  std::string data;
  size_t head_end = std::string::npos;
  char buf[8192];
  while (head_end == std::string::npos) {
    if (data.size() > kMaxHead) return false;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.append(buf, static_cast<size_t>(n));
    head_end = data.find("\r\n\r\n");
  }
  std::istringstream head(data.substr(0, head_end));
  head >> out.method >> out.path;
  size_t length = 0;
  std::string line;
  while (std::getline(head, line)) {
    const std::string lower = AsciiLower(line);
    if (lower.rfind("content-length:", 0) == 0)
      length = std::strtoul(line.c_str() + 15, nullptr, 10);
  }
  if (length > kMaxBody) return false;
  out.body = data.substr(head_end + 4);
  while (out.body.size() < length) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out.body.append(buf, static_cast<size_t>(n));
  }
  out.body.resize(length);
  return true;
}

// Whether the client has closed its side (the relay closes the connection
// when its own client goes away).
bool ClientGone(int fd) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLRDHUP | POLLERR)) return true;
  char c = 0;
  return ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

// The WAV llama-tts wrote at `path`, read without following a link there
// (llama-tts may write its run's directory, so it could leave one pointing
// at a file of ours); nullopt when it is no regular file of a sane size.
std::optional<std::string> ReadWavFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> wav;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      static_cast<uint64_t>(st.st_size) <= kMaxWavBytes) {
    std::string bytes(static_cast<size_t>(st.st_size), '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    if (got == bytes.size()) wav = std::move(bytes);
  }
  ::close(fd);
  return wav;
}

// What a /speech request asks for, read once for either route.
struct SpeechArgs {
  std::string text;
  int max_tokens = 0;  // the relay's cap (n_predict)
  int timeout_s = kDefaultTimeoutS;
};

// The request's fields; nullopt (answered 400) when one is missing or of
// the wrong type.
std::optional<SpeechArgs> ReadSpeechArgs(int fd, const nlohmann::json& job) {
  SpeechArgs args;
  try {
    args.text = job.value("input", std::string());
    args.max_tokens = job.value("n_predict", 0);
    args.timeout_s = job.value("timeout_s", kDefaultTimeoutS);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    AnswerError(fd, 400, e.what());
    return std::nullopt;
  }
  if (args.text.empty() || args.max_tokens <= 0 || args.timeout_s <= 0) {
    AnswerError(fd, 400, "`input`, a positive `n_predict` and a positive `timeout_s` are required");
    return std::nullopt;
  }
  return args;
}

// One run of llama-tts in `dir`; answers the client itself, once `dir` is gone.
void Synthesize(int fd, const TtsServerOptions& options, const SpeechArgs& args,
                const fs::path& dir) {
  // The run's directory goes before its answer: a client that has the
  // answer finds nothing of the run left (Serve removes it when none is sent).
  const auto clear = [&dir] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  };
  const auto fail = [&](int status, const std::string& message, const std::string& detail = "") {
    clear();
    AnswerError(fd, status, message, detail);
  };
  const std::string& text = args.text;
  const int max_tokens = args.max_tokens;
  const int timeout_s = args.timeout_s;
  const fs::path out = dir / "speech.wav";
  SpawnOptions spawn;
  spawn.argv = TtsRunArgs(options.command, text, out, max_tokens);
  spawn.ring_lines = 50;
  Result<std::unique_ptr<Process>> process = Process::Spawn(spawn);
  if (!process.ok()) return fail(500, process.status().message());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (!(*process)->WaitForExit(milliseconds(50))) {
    if (ClientGone(fd) || g_signal != 0) {
      (*process)->Terminate(milliseconds(500));
      return;  // nobody to answer
    }
    if (std::chrono::steady_clock::now() > deadline) {
      (*process)->Terminate(milliseconds(500));
      return fail(504, "llama-tts took over " + std::to_string(timeout_s) + " s");
    }
  }
  const int status = *(*process)->ExitStatus();
  if (status != 0) {
    // Its sandbox's bwrap reports a kill as exit code 128 + the signal.
    if (Process::KilledFromOutside(status)) {
      return fail(503, "llama-tts was killed (" + Process::DescribeExit(status) + ")");
    }
    return fail(500, "llama-tts " + Process::DescribeExit(status), (*process)->OutputTail(6));
  }
  std::optional<std::string> wav = ReadWavFile(out);
  if (!wav) return fail(500, "llama-tts wrote no usable audio", (*process)->OutputTail(6));
  clear();
  Answer(fd, 200, "audio/wav", *wav);
}

// This engine's exit code once a child of its own ended with `child` (a
// wait status): a kill from outside passed on as bwrap reports one (128 +
// the signal), anything else 1.
int ExitCodeAfter(int child) {
  if (!Process::KilledFromOutside(child)) return 1;
  return WIFSIGNALED(child) ? 128 + WTERMSIG(child) : WEXITSTATUS(child);
}

// The OuteTTS route: the two llama-servers do the work.
// Whether one of the engine's llama-servers has died, given two seconds to be
// reaped: the broken connection to a killed one comes a moment before its
// exit can be seen. Asked only after an error, so a healthy engine never
// waits.
bool ChildDied(OuteTtsEngine& engine) {
  for (int i = 0; i < 100; ++i) {
    if (!engine.Running()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !engine.Running();
}

void Speak(int fd, OuteTtsEngine& engine, const SpeechArgs& args) {
  const TtsReply reply = engine.Speak(args.text, args.max_tokens, args.timeout_s, [fd, &engine] {
    return ClientGone(fd) || g_signal != 0 || g_stopping || !engine.Running();
  });
  if (ClientGone(fd)) return;  // nobody to answer
  // A llama-server died under the request: no answer at all, as from any
  // engine that dies, so zest's relay tries the request on a fresh instance
  // (this one exits: RunTtsServer); a 503 would end it.
  if (reply.status >= 500 && ChildDied(engine)) return;
  Answer(fd, reply.status, reply.content_type, reply.body);
}

void Serve(int fd, const TtsServerOptions& options, OuteTtsEngine* outetts) {
  HttpRequest request;
  if (!ReadRequest(fd, request)) return;
  if (request.method == "GET" && request.path == "/health") {
    return Answer(fd, 200, "application/json", R"({"status":"ok"})");
  }
  if (request.method != "POST" || request.path != "/speech") {
    return AnswerError(fd, 404, "no route " + request.method + " " + request.path);
  }
  nlohmann::json job = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (!job.is_object()) return AnswerError(fd, 400, "the body is not a JSON object");
  const std::optional<SpeechArgs> args = ReadSpeechArgs(fd, job);
  if (!args) return;
  if (outetts != nullptr) return Speak(fd, *outetts, *args);
  std::string pattern = (options.work_dir / "tts-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return AnswerError(fd, 500, std::string("cannot make a work directory: ") + strerror(errno));
  }
  const fs::path dir = pattern;
  Synthesize(fd, options, *args, dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// A connection's thread, and whether it has finished.
struct Worker {
  std::atomic<bool> done{false};
  std::jthread thread;
};

}  // namespace

std::vector<std::string> TtsServerCommand(const fs::path& zest, const fs::path& socket,
                                          const fs::path& work_dir) {
  return {zest.string(), "tts-engine",      "--socket", socket.string(),
          "--work-dir",  work_dir.string(), "--"};
}

std::vector<std::string> OuteTtsServerCommand(const fs::path& zest, const fs::path& socket,
                                              const fs::path& work_dir,
                                              const OuteTtsServers& servers) {
  return {zest.string(), "tts-engine",      "--socket",  socket.string(),
          "--work-dir",  work_dir.string(), "--outetts", OuteTtsServersJson(servers)};
}

std::vector<std::string> TtsRunArgs(const std::vector<std::string>& command,
                                    const std::string& text, const fs::path& out, int max_tokens) {
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), {"-p", text, "-o", out.string(), "-n", std::to_string(max_tokens)});
  return argv;
}

int RunTtsServer(const TtsServerOptions& options) {
  ::umask(077);  // each run's directory 0700, its WAV 0600
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  // The engines' one writable directory (llama_tts_adapter.cc RunsDir):
  // each run's directory, or the llama-servers' sockets, go below it.
  if (::mkdir(options.work_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "zest tts-engine: cannot make %s: %s\n", options.work_dir.c_str(),
                 strerror(errno));
    return 1;
  }
  // An OuteTTS model's llama-servers load first: the socket appears when
  // the instance can answer, as with every other engine.
  std::unique_ptr<OuteTtsEngine> outetts;
  if (options.outetts) {
    Result<std::unique_ptr<OuteTtsEngine>> started = OuteTtsEngine::Start(
        *options.outetts, std::chrono::seconds(kLoadTimeoutS), [] { return g_signal != 0; });
    if (!started.ok()) {
      std::fprintf(stderr, "zest tts-engine: %s\n", started.status().message().c_str());
      return 1;
    }
    outetts = std::move(*started);
  }
  const int listener = ListenUnix(options.socket);
  if (listener < 0) {
    std::fprintf(stderr, "zest tts-engine: cannot listen on %s: %s\n", options.socket.c_str(),
                 strerror(errno));
    return 1;
  }
  std::list<Worker> workers;
  int exit_code = 0;
  while (g_signal == 0) {
    std::erase_if(workers, [](const Worker& w) { return w.done.load(); });
    if (outetts && !outetts->Running()) {
      // A dead child is not restarted here: the instance exits, and zest's
      // supervisor restarts it whole, as with any engine that dies. The
      // runs in progress give up and answer nothing (Speak), so the relay
      // tries them again on the fresh instance.
      // A child killed from outside (an operator, the OOM killer) ends this
      // engine the way bwrap reports a kill, 128 + the signal, so zest's
      // supervisor restarts it at once; one that failed on its own is this
      // engine failing (exit 1), which the crash-loop breaker may hold off.
      const int child = outetts->ChildExit().value_or(0);
      std::fprintf(stderr, "zest tts-engine: a llama-server %s; stopping\n",
                   Process::DescribeExit(child).c_str());
      g_stopping = true;
      exit_code = ExitCodeAfter(child);
      break;
    }
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // A client that sends no whole request in time holds no thread for
    // long (nor the exit at SIGTERM, which joins every thread).
    const timeval read_limit{.tv_sec = kReadTimeoutS, .tv_usec = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &read_limit, sizeof(read_limit));
    Worker& worker = workers.emplace_back();
    worker.thread = std::jthread([fd, &options, &worker, engine = outetts.get()] {
      Serve(fd, options, engine);
      ::close(fd);
      worker.done = true;
    });
  }
  // No new connection waits on a listener nobody accepts on while the runs
  // in progress finish: the relay sees the instance gone at once.
  ::close(listener);
  ::unlink(options.socket.c_str());
  workers.clear();  // each run sees the signal (or g_stopping) and stops its engine work
  return exit_code;
}

}  // namespace zest::engines
