#include "api/pull_route.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zest::api {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

// Progress at most this often: enough for a smooth bar, few enough that a
// fast local download does not flood the client.
constexpr auto kProgressInterval = std::chrono::milliseconds(250);

}  // namespace

// One pull in flight. The pulling thread writes progress and the result
// under `mu`; `wake` belongs to the connection's executor (strand) and is
// only touched there.
struct PullRunner::Job {
  Job(const asio::any_io_executor& ex, std::string spec_in)
      : executor(ex), wake(ex), spec(std::move(spec_in)) {}
  asio::any_io_executor executor;
  asio::steady_timer wake;
  const std::string spec;
  std::atomic<bool> cancel{false};
  Mutex mu;
  models::PullProgress progress GUARDED_BY(mu);
  uint64_t progress_seq GUARDED_BY(mu) = 0;
  bool done GUARDED_BY(mu) = false;
  Result<models::PullResult> result GUARDED_BY(mu);
};

PullRunner::PullRunner(models::PullService& service) : service_(service) {}

PullRunner::~PullRunner() {
  {
    MutexLock lock(mu_);
    for (auto& weak : jobs_) {
      if (auto job = weak.lock()) job->cancel.store(true);
    }
  }
  blocking_.join();
}

void PullRunner::Run(std::shared_ptr<Job> job) {
  auto on_progress = [&job](const models::PullProgress& p) {
    MutexLock lock(job->mu);
    job->progress = p;
    ++job->progress_seq;
  };
  Result<models::PullResult> result = service_.Pull(job->spec, on_progress, &job->cancel);
  if (!result.ok() && result.status().code() != ErrorCode::kCancelled) {
    spdlog::warn("pull {} failed: {}", job->spec, result.status().message());
  }
  {
    MutexLock lock(job->mu);
    job->result = std::move(result);
    job->done = true;
  }
  asio::post(job->executor, [job] { job->wake.cancel(); });
}

awaitable<void> PullRunner::Serve(const PullWire& wire, http::Request& request,
                                  http::ResponseWriter& writer) {
  std::string param;
  Result<PullRequest> body = wire.Parse(request.body, &param);
  if (!body.ok()) co_return co_await wire.SendError(writer, body.status(), param);
  auto executor = co_await asio::this_coro::executor;
  auto job = std::make_shared<Job>(executor, body->model);
  {
    MutexLock lock(mu_);
    std::erase_if(jobs_, [](const std::weak_ptr<Job>& w) { return w.expired(); });
    jobs_.push_back(job);
  }
  writer.OnClientGone([job] { job->cancel.store(true); });
  asio::post(blocking_, [this, job] { Run(job); });
  if (body->stream) {
    co_await StreamProgress(wire, job, writer);
  } else {
    co_await AnswerWhole(wire, job, writer);
  }
  writer.OnClientGone(nullptr);
}

awaitable<void> PullRunner::StreamProgress(const PullWire& wire, std::shared_ptr<Job> job,
                                           http::ResponseWriter& writer) {
  const http::Headers headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  if (!co_await writer.StartStream(200, wire.stream_content_type(), headers)) {
    co_return;
  }
  if (const std::string start = wire.StartLine(); !start.empty()) {
    if (!co_await writer.WriteChunk(start)) co_return;
  }
  std::string last_sent;
  while (true) {
    job->wake.expires_after(kProgressInterval);
    co_await job->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    std::string progress;
    std::string end;
    {
      MutexLock lock(job->mu);
      if (job->progress_seq > 0) progress = wire.ProgressLine(job->progress);
      if (job->done) end = wire.EndLine(job->result);
    }
    // The latest progress, even when the pull finished within one interval,
    // so a client always sees what was fetched.
    if (!progress.empty() && progress != last_sent) {
      last_sent = progress;
      if (!co_await writer.WriteChunk(progress)) co_return;
    }
    if (!end.empty()) {
      if (!co_await writer.WriteChunk(end)) co_return;
      break;
    }
  }
  co_await writer.EndStream();
}

awaitable<void> PullRunner::AnswerWhole(const PullWire& wire, std::shared_ptr<Job> job,
                                        http::ResponseWriter& writer) {
  while (true) {
    job->wake.expires_after(std::chrono::seconds(1));
    co_await job->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    if (writer.client_gone()) co_return;
    MutexLock lock(job->mu);
    if (job->done) break;
  }
  Result<models::PullResult> result;
  {
    MutexLock lock(job->mu);
    result = job->result;
  }
  if (!result.ok()) co_return co_await wire.SendError(writer, result.status(), "model");
  co_await writer.Send(200, "application/json", wire.WholeAnswer(*result));
}

}  // namespace zest::api
