#include "api/admin/pull_api.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "api/admin/request_body.h"
#include "api/ollama/ollama_pull.h"
#include "api/request/errors.h"
#include "http/sse.h"

namespace zest::api::admin {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

namespace {

// Progress events at most this often: enough for a smooth bar, few enough
// that a fast local download does not flood the client.
constexpr auto kProgressInterval = std::chrono::milliseconds(250);

json ProgressJson(const models::PullProgress& p) {
  json j = {{"status", p.status}};
  if (!p.file.empty()) {
    j["file"] = p.file;
    j["completed"] = p.completed;
    j["total"] = p.total;
    j["file_index"] = p.file_index;
    j["file_count"] = p.file_count;
  }
  return j;
}

std::string ErrorJson(const Status& status) {
  api::ApiError e = api::MapStatus(status);
  return api::ErrorBody(status.message(), e.type, e.code);
}

json SuccessJson(const models::PullResult& r) {
  return {{"status", "success"},
          {"model", r.model},
          {"repo", r.repo},
          {"commit", r.commit},
          {"files", r.files}};
}

// An error before the answer starts, in the client's API's shape.
awaitable<void> SendPullError(PullApi::Wire wire, http::ResponseWriter& writer,
                              const Status& status, const std::string& param) {
  if (wire == PullApi::Wire::kZest) co_return co_await api::SendError(writer, status, param);
  const std::string body = ollama::PullErrorLine(status);
  co_await writer.Send(api::MapStatus(status).http_status, "application/json", body);
}

}  // namespace

// One pull in flight. The pulling thread writes progress and the result
// under `mu`; `wake` belongs to the connection's executor (strand) and is
// only touched there.
struct PullApi::Job {
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

PullApi::PullApi(models::PullService& service) : service_(service) {}

PullApi::~PullApi() {
  {
    MutexLock lock(mu_);
    for (auto& weak : jobs_) {
      if (auto job = weak.lock()) job->cancel.store(true);
    }
  }
  blocking_.join();
}

void PullApi::Register(http::Router& router) {
  router.Add("POST", "/api/v1/pull", [this](http::Request& r, http::ResponseWriter& w) {
    return Handle(Wire::kZest, r, w);
  });
  router.Add("POST", "/api/pull", [this](http::Request& r, http::ResponseWriter& w) {
    return Handle(Wire::kOllama, r, w);
  });
}

void PullApi::Run(std::shared_ptr<Job> job) {
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

awaitable<void> PullApi::Handle(Wire wire, http::Request& request, http::ResponseWriter& writer) {
  std::string param;
  auto body = wire == Wire::kOllama ? ollama::ParseOllamaPull(request.body)
                                    : ParsePullRequest(request.body, &param);
  if (!body.ok()) co_return co_await SendPullError(wire, writer, body.status(), param);
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

awaitable<void> PullApi::StreamProgress(Wire wire, std::shared_ptr<Job> job,
                                        http::ResponseWriter& writer) {
  const bool ollama = wire == Wire::kOllama;
  const http::Headers headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  if (!co_await writer.StartStream(200, ollama ? "application/x-ndjson" : "text/event-stream",
                                   headers)) {
    co_return;
  }
  if (ollama) {
    const std::string start = ollama::PullStartLine();
    if (!co_await writer.WriteChunk(start)) co_return;
  }
  std::string last_sent;
  while (true) {
    job->wake.expires_after(kProgressInterval);
    co_await job->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    std::string progress;
    std::string final_event;
    {
      MutexLock lock(job->mu);
      if (job->progress_seq > 0) {
        progress = ollama ? ollama::PullProgressLine(job->progress)
                          : http::SseData(ProgressJson(job->progress).dump());
      }
      if (job->done && ollama) {
        final_event = job->result.ok() ? ollama::PullSuccessLine()
                                       : ollama::PullErrorLine(job->result.status());
      } else if (job->done) {
        final_event = http::SseData(job->result.ok() ? SuccessJson(*job->result).dump()
                                                     : ErrorJson(job->result.status()));
      }
    }
    // The latest progress, even when the pull finished within one interval,
    // so a client always sees what was fetched.
    if (!progress.empty() && progress != last_sent) {
      last_sent = progress;
      if (!co_await writer.WriteChunk(progress)) co_return;
    }
    if (!final_event.empty()) {
      if (!co_await writer.WriteChunk(final_event)) co_return;
      break;
    }
  }
  co_await writer.EndStream();
}

awaitable<void> PullApi::AnswerWhole(Wire wire, std::shared_ptr<Job> job,
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
  if (!result.ok()) co_return co_await SendPullError(wire, writer, result.status(), "model");
  std::string reply =
      wire == Wire::kOllama ? ollama::PullSuccessLine() : SuccessJson(*result).dump();
  co_await writer.Send(200, "application/json", std::move(reply));
}

}  // namespace zest::api::admin
