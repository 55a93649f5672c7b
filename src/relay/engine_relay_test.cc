// RelayToEngine driven end to end without a real engine: the instances a
// stand-in dispatch hands out (InstanceDispatch is the relay's seam onto
// the scheduler) listen on UNIX sockets served by a stand-in engine, a
// thread here that answers each connection with a scripted HTTP reply and
// can die in the middle of one; the client is a recording ResponseWriter.
// What the node suites show with real engines (retries, resumption of a
// broken stream, a streamed answer put together whole), shown here on the
// relay alone.
#include "relay/engine_relay.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/mutex.h"
#include "core/testing/temp_dir.h"
#include "scheduler/fake_engine.h"

namespace zest::relay {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

// One scripted reply of the stand-in engine: `head` and `events` (sent as
// chunks of a chunked body), then the body's end, unless `die` runs
// first: then the connection closes mid-body, as an engine killed there.
struct Reply {
  std::string head;
  std::vector<std::string> events;
  std::function<void()> die;  // null: the body ends whole
};

Reply Sse(const std::vector<std::string>& data, std::function<void()> die = nullptr) {
  Reply reply{
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
      {},
      std::move(die)};
  for (const std::string& d : data) reply.events.push_back("data: " + d + "\n\n");
  return reply;
}

Reply WholeJson(const json& body) {
  const std::string text = body.dump();
  return {
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n",
      {text},
      nullptr};
}

// A stand-in for an engine's HTTP server (not llama-server: only what the
// relay reads): serves `replies` in order, one per connection, on
// `socket`, and records each request's body.
class StandInEngine {
 public:
  StandInEngine(fs::path socket, std::deque<Reply> replies)
      : socket_(std::move(socket)), replies_(std::move(replies)) {
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_.c_str(), sizeof(addr.sun_path) - 1);
    ::unlink(socket_.c_str());
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listen_fd_, 4) != 0) {
      ADD_FAILURE() << "stand-in engine cannot listen on " << socket_;
    }
    thread_ = std::jthread([this](const std::stop_token& stop) { Serve(stop); });
  }
  ~StandInEngine() {
    thread_.request_stop();
    thread_.join();
    ::close(listen_fd_);
  }
  std::vector<std::string> bodies() {
    MutexLock lock(mu_);
    return bodies_;
  }

 private:
  void Serve(const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      Answer(fd);
      ::close(fd);
    }
  }
  // Reads the whole request (an unread body would make the close a reset),
  // then writes the next reply.
  void Answer(int fd) {
    std::string in;
    char buf[4096];
    std::size_t end = std::string::npos;
    while ((end = in.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return;
      in.append(buf, static_cast<std::size_t>(n));
    }
    std::size_t length = 0;
    if (auto at = in.find("Content-Length: "); at != std::string::npos) {
      length = std::stoul(in.substr(at + 16));
    }
    while (in.size() < end + 4 + length) {
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return;
      in.append(buf, static_cast<std::size_t>(n));
    }
    Reply reply;
    {
      MutexLock lock(mu_);
      bodies_.push_back(in.substr(end + 4, length));
      if (replies_.empty()) return;  // no reply: the connection closes
      reply = std::move(replies_.front());
      replies_.pop_front();
    }
    std::string out = reply.head;
    for (const std::string& e : reply.events) {
      char size[32];
      std::snprintf(size, sizeof(size), "%zx\r\n", e.size());
      out += size + e + "\r\n";
    }
    if (reply.die) {
      Write(fd, out);
      reply.die();
      return;
    }
    Write(fd, out + "0\r\n\r\n");
  }
  static void Write(int fd, const std::string& out) {
    if (::write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
      ADD_FAILURE() << "stand-in engine write";
    }
  }

  const fs::path socket_;
  int listen_fd_ = -1;
  Mutex mu_;
  std::deque<Reply> replies_ GUARDED_BY(mu_);
  std::vector<std::string> bodies_ GUARDED_BY(mu_);
  std::jthread thread_;
};

// The scheduler as the relay sees it: the next of `instances` for each
// dispatch, and which were reported broken.
class StandInDispatch : public scheduler::InstanceDispatch, public scheduler::InstanceDirectory {
 public:
  std::vector<std::shared_ptr<scheduler::Instance>> instances;
  int dispatched = 0;
  int broken = 0;

  asio::awaitable<Result<scheduler::InstanceLease>> Dispatch(models::ModelEntry, bool,
                                                             std::string) override {
    if (dispatched >= static_cast<int>(instances.size())) co_return Unavailable("no more");
    std::shared_ptr<scheduler::Instance> next = instances[dispatched++];
    ++next->in_flight;
    co_return scheduler::InstanceLease::Adopt(std::move(next));
  }
  scheduler::InstanceLease TryReserveOther(const std::string&,
                                           const scheduler::Instance&) override {
    return {};
  }
  asio::awaitable<void> ReportBroken(std::shared_ptr<scheduler::Instance>) override {
    ++broken;
    co_return;
  }
  void TurnEnded(const std::shared_ptr<scheduler::Instance>&, const std::string&,
                 uint64_t) override {}
  std::vector<scheduler::InstanceStatus> List() override { return {}; }
  std::shared_ptr<scheduler::Instance> Find(const std::string&) override { return nullptr; }
};

// The client: what it was sent, whole or streamed.
class RecordingWriter : public http::ResponseWriter {
 public:
  int sent_status = 0;
  std::string body;
  bool ended = false;

  asio::awaitable<bool> Send(int status, std::string_view, std::string text,
                             const http::Headers&) override {
    sent_status = status;
    body = std::move(text);
    co_return true;
  }
  asio::awaitable<bool> StartStream(int status, std::string_view, const http::Headers&) override {
    sent_status = status;
    co_return true;
  }
  asio::awaitable<bool> WriteChunk(std::string_view data) override {
    if (sent_status == 0) sent_status = 200;
    body += data;
    co_return true;
  }
  asio::awaitable<bool> EndStream() override {
    ended = true;
    co_return true;
  }
  bool started() const override { return sent_status != 0; }
  int status() const override { return sent_status; }
  bool client_gone() const override { return false; }
  void OnClientGone(std::function<void()>) override {}
};

// A translated API in miniature: each chunk's text, "|end" at the stream's
// end, "|error" when it broke; a whole answer as its text and its usage.
class TextTranslator : public AnswerTranslator {
 public:
  std::string_view stream_content_type() const override { return "text/plain"; }
  std::string Chunk(const json& chunk) override { return ReadChatChunk(chunk).content; }
  std::string End() override { return "|end"; }
  std::string StreamError(const Status& status) override { return "|error " + status.message(); }
  Result<std::string> Whole(const json& answer) override {
    const json usage = answer.value("usage", json::object());
    return answer["choices"][0]["message"]["content"].get<std::string>() + "|" +
           std::to_string(usage.value("completion_tokens", -1));
  }
};

asio::awaitable<void> SendTestError(http::ResponseWriter& w, const Status& status, std::string_view,
                                    const http::Headers& headers) {
  co_await w.Send(500, "text/plain", "error: " + status.message(), headers);
}

// An engine that asks for a stream even for a whole answer (as
// llama-server's adapter does), so the relay puts it together.
class StreamingAdapter : public scheduler::fake::FakeAdapter {
 public:
  bool AsksAsStream(const engines::ChatRequest& request) const override { return !request.stream; }
};

std::string Chunk(json delta, json finish = nullptr) {
  return json{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion.chunk"},
      {"created", 1700000000},
      {"model", "m"},
      {"choices",
       json::array(
           {{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}})}}
      .dump();
}

class EngineRelayTest : public ::testing::Test {
 protected:
  // An instance whose engine process is a stand-in; its socket is `name`
  // in the test's directory, served or not.
  std::shared_ptr<scheduler::Instance> AddInstance(const std::string& name,
                                                   const engines::EngineAdapter& adapter) {
    auto process =
        std::make_unique<scheduler::fake::FakeEngine>(next_pid_++, dir_ / (name + ".process"));
    processes_.push_back(process.get());
    auto instance = std::make_shared<scheduler::Instance>("m", dir_ / name, std::move(process));
    instance->engine = &adapter;
    dispatch_.instances.push_back(instance);
    return instance;
  }

  RelayRequest Request(bool stream) {
    engines::ChatRequest chat;
    chat.model = "m";
    chat.stream = stream;
    chat.messages.push_back(engines::Message::Text("user", "hi"));
    RelayRequest request;
    request.model.name = "m";
    request.chat = std::make_shared<const engines::ChatRequest>(std::move(chat));
    request.stream = stream;
    request.admit.model = "m";
    request.admit.deadline = scheduler::Clock::now() + 20s;
    request.send_error = SendTestError;
    request.translator = std::make_shared<TextTranslator>();
    return request;
  }

  void Relay(RelayRequest request) {
    scheduler::Admission admission(io_, scheduler::AdmissionLimits{});
    EngineServices services{dispatch_, dispatch_, nullptr, admission};
    bool done = false;
    asio::co_spawn(io_, RelayToEngine(services, std::move(request), writer_),
                   [&done](const std::exception_ptr& error) {
                     EXPECT_FALSE(error) << "the relay threw";
                     done = true;
                   });
    io_.run_for(20s);
    EXPECT_TRUE(done) << "the relay did not finish";
  }

  testing::TempDir temp_{"relay"};
  const fs::path dir_ = temp_.path();
  asio::io_context io_;
  StandInDispatch dispatch_;
  RecordingWriter writer_;
  std::vector<scheduler::fake::FakeEngine*> processes_;
  pid_t next_pid_ = 4'100'000;
};

TEST_F(EngineRelayTest, AFirstEngineThatDoesNotAnswerLeavesTheRequestToAFreshOne) {
  scheduler::fake::FakeAdapter adapter;
  AddInstance("refuses.sock", adapter);  // nothing listens: the connect fails
  AddInstance("answers.sock", adapter);
  StandInEngine engine(
      dir_ / "answers.sock",
      {WholeJson(
          {{"choices", json::array({{{"index", 0},
                                     {"message", {{"role", "assistant"}, {"content", "hello"}}},
                                     {"finish_reason", "stop"}}})},
           {"usage", {{"completion_tokens", 1}}}})});
  Relay(Request(/*stream=*/false));
  EXPECT_EQ(dispatch_.dispatched, 2);
  EXPECT_EQ(dispatch_.broken, 1);  // the first, reported so the pool forgets it
  EXPECT_EQ(writer_.sent_status, 200);
  EXPECT_EQ(writer_.body, "hello|1");
  ASSERT_EQ(engine.bodies().size(), 1u);
  EXPECT_EQ(json::parse(engine.bodies()[0])["messages"][0]["content"], "hi");
}

TEST_F(EngineRelayTest, AStreamTheEngineBreaksOffGoesOnOnAFreshEngine) {
  scheduler::fake::FakeAdapter adapter;
  AddInstance("first.sock", adapter);
  AddInstance("second.sock", adapter);
  // Killed from outside after two tokens, as the OOM killer would.
  scheduler::fake::FakeEngine* first = processes_[0];
  StandInEngine dies(dir_ / "first.sock",
                     {Sse({Chunk({{"role", "assistant"}}), Chunk({{"content", "Hel"}}),
                           Chunk({{"content", "lo"}})},
                          [first] { first->Exit(scheduler::fake::kKilledBySigkill); })});
  StandInEngine rest(dir_ / "second.sock",
                     {Sse({Chunk({{"role", "assistant"}}), Chunk({{"content", " world"}}),
                           Chunk(json::object(), "stop"), "[DONE]"})});
  Relay(Request(/*stream=*/true));
  EXPECT_EQ(dispatch_.dispatched, 2);
  EXPECT_EQ(writer_.body, "Hello world|end");  // one answer, no error between
  EXPECT_TRUE(writer_.ended);
  // The fresh engine was asked to go on from the text the client has.
  ASSERT_EQ(rest.bodies().size(), 1u);
  const json asked = json::parse(rest.bodies()[0]);
  EXPECT_EQ(asked["messages"].back()["role"], "assistant");
  EXPECT_EQ(asked["messages"].back()["content"], "Hello");
}

TEST_F(EngineRelayTest, AWholeAnswerAskedAsAStreamIsPutTogetherForATranslatedApi) {
  StreamingAdapter adapter;
  AddInstance("engine.sock", adapter);
  StandInEngine engine(dir_ / "engine.sock",
                       {Sse({Chunk({{"role", "assistant"}}), Chunk({{"content", "Hel"}}),
                             Chunk({{"content", "lo"}}), Chunk(json::object(), "stop"),
                             json{{"id", "chatcmpl-1"},
                                  {"object", "chat.completion.chunk"},
                                  {"choices", json::array()},
                                  {"usage", {{"prompt_tokens", 3}, {"completion_tokens", 2}}}}
                                 .dump(),
                             "[DONE]"})});
  Relay(Request(/*stream=*/false));
  ASSERT_EQ(engine.bodies().size(), 1u);
  EXPECT_EQ(json::parse(engine.bodies()[0])["stream"], true);  // asked as a stream
  EXPECT_EQ(writer_.sent_status, 200);
  EXPECT_EQ(writer_.body, "Hello|2");  // one whole answer, with the engine's usage
}

}  // namespace
}  // namespace zest::relay
