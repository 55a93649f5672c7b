#include "engines/outetts_engine.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "engines/outetts_prompt.h"
#include "engines/wavtokenizer_istft.h"

namespace zest::engines {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxReply = 1024ull * 1024 * 1024;  // the vocoder's floats as JSON text

struct HttpReply {
  int status = 0;
  std::string body;
};

// Chunked transfer coding undone; `body` unchanged when it is not chunked.
std::string Unchunk(const std::string& body) {
  std::string out;
  size_t at = 0;
  while (at < body.size()) {
    const size_t eol = body.find("\r\n", at);
    if (eol == std::string::npos) break;
    const size_t size = std::strtoul(body.c_str() + at, nullptr, 16);
    if (size == 0) break;
    out.append(body, eol + 2, size);
    at = eol + 2 + size + 2;
  }
  return out;
}

// One HTTP/1.1 exchange with a llama-server child on its UNIX socket
// (Connection: close, so the reply ends with the connection). kCancelled
// when `give_up` says so while waiting; kTimeout past `deadline`.
Result<HttpReply> Exchange(const fs::path& socket, const std::string& method,
                           const std::string& path, const std::string& body,
                           Clock::time_point deadline, const std::function<bool()>& give_up) {
  sockaddr_un addr{};
  if (socket.native().size() >= sizeof(addr.sun_path))
    return InvalidArgument("socket path too long");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(std::string("socket: ") + strerror(errno));
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof(addr.sun_path) - 1);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return Unavailable("cannot connect to " + socket.string() + ": " + strerror(errno));
  }
  std::string request =
      method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (!body.empty()) {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  for (std::string_view rest = request; !rest.empty();) {
    const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(std::string("send: ") + strerror(errno));
    rest.remove_prefix(static_cast<size_t>(n));
  }
  std::string data;
  char buf[65536];
  for (;;) {
    if (give_up && give_up()) return Status(ErrorCode::kCancelled, "cancelled");
    if (Clock::now() > deadline) return Status(ErrorCode::kTimeout, "no answer in time");
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unavailable(std::string("recv: ") + strerror(errno));
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > kMaxReply) return EngineFailed("the answer is too large");
  }
  const size_t head_end = data.find("\r\n\r\n");
  if (data.rfind("HTTP/1.", 0) != 0 || head_end == std::string::npos) {
    return EngineFailed("not an HTTP answer from " + socket.filename().string());
  }
  HttpReply reply;
  reply.status = std::atoi(data.c_str() + 9);
  reply.body = data.substr(head_end + 4);
  std::string head = data.substr(0, head_end);
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (head.find("transfer-encoding: chunked") != std::string::npos)
    reply.body = Unchunk(reply.body);
  return reply;
}

// An error answer: `message` for the client, `detail` (what a llama-server
// said) for zest's log only (AnswerError in tts_server.cc).
TtsReply Error(int status, const std::string& message, const std::string& detail = "") {
  nlohmann::json error = {{"message", message}};
  if (!detail.empty()) error["detail"] = detail;
  return {status, "application/json", nlohmann::json{{"error", error}}.dump()};
}

// A failed exchange's status, with what the llama-server answered kept
// apart from the message (EngineFailed's text is "MESSAGE\nDETAIL").
TtsReply ErrorFor(int status, const Status& failed) {
  const std::string& text = failed.message();
  const size_t cut = text.find('\n');
  if (cut == std::string::npos) return Error(status, text);
  return Error(status, text.substr(0, cut), text.substr(cut + 1));
}

int StatusFor(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kTimeout:
      return 504;
    case ErrorCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

// The backbone's tokens for `prompt`: top-k 4 sampling, as OuteTTS wants.
Result<std::vector<int32_t>> Generate(const fs::path& socket, const std::string& prompt,
                                      int max_tokens, Clock::time_point deadline,
                                      const std::function<bool()>& cancelled) {
  const nlohmann::json body = {
      {"prompt", prompt},      {"n_predict", max_tokens}, {"top_k", 4},
      {"samplers", {"top_k"}}, {"return_tokens", true},   {"cache_prompt", false}};
  ZEST_ASSIGN_OR_RETURN(HttpReply reply,
                        Exchange(socket, "POST", "/completion", body.dump(), deadline, cancelled));
  const nlohmann::json j = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (reply.status != 200 || !j.is_object() || !j.contains("tokens") || !j["tokens"].is_array()) {
    return EngineFailed("the backbone answered " + std::to_string(reply.status) + "\n" +
                        reply.body.substr(0, 300));
  }
  std::vector<int32_t> tokens;
  for (const auto& t : j["tokens"]) {
    if (t.is_number_integer()) tokens.push_back(t.get<int32_t>());
  }
  return tokens;
}

// The vocoder's frames for `codes`: 1282 floats a code, appended to `frames`.
Status Vocode(const fs::path& socket, std::span<const int32_t> codes, Clock::time_point deadline,
              const std::function<bool()>& cancelled, std::vector<float>& frames) {
  const nlohmann::json body = {{"content", std::vector<int32_t>(codes.begin(), codes.end())},
                               {"embd_normalize", -1}};
  ZEST_ASSIGN_OR_RETURN(HttpReply reply,
                        Exchange(socket, "POST", "/embedding", body.dump(), deadline, cancelled));
  const nlohmann::json j = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  // [{"index": 0, "embedding": [[1282 floats], ...one per code]}]
  if (reply.status != 200 || !j.is_array() || j.empty() || !j[0].is_object() ||
      !j[0].contains("embedding") || !j[0]["embedding"].is_array() ||
      j[0]["embedding"].size() != codes.size()) {
    return EngineFailed("the vocoder answered " + std::to_string(reply.status) + "\n" +
                        reply.body.substr(0, 300));
  }
  for (const auto& row : j[0]["embedding"]) {
    if (!row.is_array() || row.size() != static_cast<size_t>(kWavTokenizerFrameFloats)) {
      return EngineFailed("the vocoder's frame is not 1282 floats: is it a WavTokenizer?");
    }
    for (const auto& v : row) frames.push_back(v.is_number() ? v.get<float>() : 0.0f);
  }
  return Status::Ok();
}

}  // namespace

std::string OuteTtsServersJson(const OuteTtsServers& servers) {
  return nlohmann::json{
      {"backbone", {{"argv", servers.backbone.argv}, {"socket", servers.backbone.socket.string()}}},
      {"vocoder", {{"argv", servers.vocoder.argv}, {"socket", servers.vocoder.socket.string()}}},
      {"vocoder_batch", servers.vocoder_batch},
      {"context", servers.context}}
      .dump();
}

Result<OuteTtsServers> ParseOuteTtsServers(std::string_view json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  OuteTtsServers s;
  try {
    s.backbone.argv = j.at("backbone").at("argv").get<std::vector<std::string>>();
    s.backbone.socket = j.at("backbone").at("socket").get<std::string>();
    s.vocoder.argv = j.at("vocoder").at("argv").get<std::vector<std::string>>();
    s.vocoder.socket = j.at("vocoder").at("socket").get<std::string>();
    s.vocoder_batch = j.value("vocoder_batch", s.vocoder_batch);
    s.context = j.value("context", s.context);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(std::string("--outetts: ") + e.what());
  }
  if (s.backbone.argv.empty() || s.vocoder.argv.empty() || s.vocoder_batch <= 0) {
    return InvalidArgument("--outetts: both argv lists and a positive vocoder_batch are needed");
  }
  return s;
}

std::optional<int> OuteTtsEngine::ChildExit() const {
  if (std::optional<int> exit = backbone_->ExitStatus()) return exit;
  return vocoder_->ExitStatus();
}

OuteTtsEngine::OuteTtsEngine(OuteTtsServers servers, std::unique_ptr<Process> backbone,
                             std::unique_ptr<Process> vocoder)
    : servers_(std::move(servers)), backbone_(std::move(backbone)), vocoder_(std::move(vocoder)) {}

Result<std::unique_ptr<OuteTtsEngine>> OuteTtsEngine::Start(const OuteTtsServers& servers,
                                                            std::chrono::seconds timeout,
                                                            const std::function<bool()>& stopping) {
  std::unique_ptr<Process> children[2];
  const OuteTtsServer* which[2] = {&servers.backbone, &servers.vocoder};
  for (int i = 0; i < 2; ++i) {
    // llama-server does not bind over a socket left by a killed one.
    std::error_code ec;
    fs::remove(which[i]->socket, ec);
    SpawnOptions spawn;
    spawn.argv = which[i]->argv;
    spawn.ring_lines = 50;
    ZEST_ASSIGN_OR_RETURN(children[i], Process::Spawn(spawn));
  }
  const Clock::time_point deadline = Clock::now() + timeout;
  for (int i = 0; i < 2; ++i) {
    const char* name = i == 0 ? "the backbone's llama-server" : "the vocoder's llama-server";
    for (;;) {
      if (stopping()) return Status(ErrorCode::kCancelled, "stopped while loading");
      if (std::optional<int> exit = children[i]->ExitStatus()) {
        return Unavailable(std::string(name) + " " + Process::DescribeExit(*exit) +
                           children[i]->OutputTail(4));
      }
      if (Clock::now() > deadline) return Unavailable(std::string(name) + " did not load in time");
      Result<HttpReply> health = Exchange(which[i]->socket, "GET", "/health", "",
                                          Clock::now() + std::chrono::seconds(5), nullptr);
      if (health.ok() && health->status == 200) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return std::unique_ptr<OuteTtsEngine>(
      new OuteTtsEngine(servers, std::move(children[0]), std::move(children[1])));
}

TtsReply OuteTtsEngine::Speak(const std::string& text, int max_tokens, int timeout_s,
                              const std::function<bool()>& cancelled) {
  const std::string prompt = OuteTtsPrompt(text);
  if (prompt.empty()) return Error(400, "the text has no words OuteTTS can read");
  if (std::optional<size_t> most = OuteTtsTooLong(text, max_tokens, servers_.context)) {
    return Error(400, "the text is too long for this speech model: it speaks about " +
                          std::to_string(*most) + " characters at most in one request (its " +
                          std::to_string(servers_.context) + "-token context)");
  }
  if (!Running()) {
    return Error(503, "a llama-server of this speech-out model has exited");
  }
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_s);
  Result<std::vector<int32_t>> tokens =
      Generate(servers_.backbone.socket, prompt, max_tokens, deadline, cancelled);
  if (!tokens.ok()) return ErrorFor(StatusFor(tokens.status()), tokens.status());
  const std::vector<int32_t> codes = OuteTtsCodes(*tokens);
  if (codes.empty()) return Error(500, "the backbone wrote no audio codes");
  // The vocoder sees each chunk whole (it is not causal), so a text longer
  // than one batch (4096 codes: 54 s) is decoded in pieces.
  std::vector<float> frames;
  frames.reserve(codes.size() * kWavTokenizerFrameFloats);
  const size_t batch = static_cast<size_t>(servers_.vocoder_batch);
  for (size_t at = 0; at < codes.size(); at += batch) {
    const std::span<const int32_t> chunk(codes.data() + at, std::min(batch, codes.size() - at));
    if (Status s = Vocode(servers_.vocoder.socket, chunk, deadline, cancelled, frames); !s.ok()) {
      return ErrorFor(StatusFor(s), s);
    }
  }
  const std::vector<float> samples = WavTokenizerSamples(frames);
  return {200, "audio/wav", PcmWav(samples, kWavTokenizerRate)};
}

}  // namespace zest::engines
