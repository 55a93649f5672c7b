#include "api/prefill_handoff.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/engine_speed.h"
#include "api/inference_metrics.h"
#include "http/upstream_client.h"
#include "scheduler/slot_cache.h"
#include "scheduler/slot_files.h"

namespace zest::api {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxPrefillReplyBytes = 4u << 20;

// The prompt run alone on the prefill instance: one token generated (the
// engine needs at least one step), not streamed, pinned to `slot`.
std::string PrefillBody(json request, int slot) {
  request["max_tokens"] = 1;
  request["stream"] = false;
  request.erase("stream_options");
  request["id_slot"] = slot;
  request["cache_prompt"] = true;
  return request.dump();
}

double MsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Runs the split; the body for the decode instance, or the error that made it stop.
asio::awaitable<Result<std::string>> Split(scheduler::InstanceLease& prefill,
                                           const scheduler::Instance& decode,
                                           std::string engine_path, json request,
                                           std::string log_tag,
                                           std::shared_ptr<http::UpstreamCanceller> canceller) {
  static std::atomic<uint64_t> next_id{0};
  const std::string name = "handoff-" + std::to_string(++next_id) + ".bin";
  auto executor = co_await asio::this_coro::executor;
  const auto start = std::chrono::steady_clock::now();
  auto prefill_slot = co_await scheduler::IdleSlot(prefill->socket());
  if (!prefill_slot.ok()) co_return prefill_slot.status();
  auto decode_slot = co_await scheduler::IdleSlot(decode.socket());
  if (!decode_slot.ok()) co_return decode_slot.status();

  http::UpstreamRequest up;
  up.method = "POST";
  up.target = std::move(engine_path);
  up.headers = {{"Content-Type", "application/json"}};
  up.body = PrefillBody(request, *prefill_slot);
  up.canceller = std::move(canceller);  // the client leaving stops the prefill too
  auto response = co_await http::SendUpstream(executor, prefill->socket().string(), std::move(up));
  if (!response.ok()) co_return response.status();
  auto reply = co_await (*response)->ReadAll(kMaxPrefillReplyBytes);
  if (!reply.ok()) co_return reply.status();
  if ((*response)->status() != 200) {
    co_return EngineFailed("the prefill instance answered " +
                           std::to_string((*response)->status()));
  }
  const double prefill_ms = MsSince(start);
  MeasureSpeed(*prefill.instance(), *reply);

  const auto moved_at = std::chrono::steady_clock::now();
  Status saved = co_await scheduler::SaveSlot(prefill->socket(), *prefill_slot, name);
  if (!saved.ok()) co_return saved;
  if (Status moved = scheduler::MoveSlotFile(prefill->slot_dir, decode.slot_dir, name);
      !moved.ok()) {
    co_return moved;
  }
  Status restored = co_await scheduler::RestoreSlot(decode.socket(), *decode_slot, name);
  std::error_code ignored;
  fs::remove(decode.slot_dir / name, ignored);
  if (!restored.ok()) co_return restored;
  const double moved_ms = MsSince(moved_at);

  const uint64_t prompt_tokens = ParseTokenUsage(*reply).prompt;
  spdlog::info(
      "{}prefill of '{}' ({} prompt tokens) on {} handed to {}: prefill {:.0f} ms, "
      "KV cache moved in {:.0f} ms",
      log_tag, decode.model(), prompt_tokens, prefill->device(), decode.device(), prefill_ms,
      moved_ms);
  request["id_slot"] = *decode_slot;
  request["cache_prompt"] = true;
  co_return request.dump();
}

}  // namespace

asio::awaitable<std::string> HandOffPrefill(scheduler::InstancePool& pool,
                                            std::shared_ptr<scheduler::Instance> decode,
                                            std::string engine_path, std::string body,
                                            std::string log_tag,
                                            std::shared_ptr<http::UpstreamCanceller> canceller) {
  if (decode->slot_dir.empty()) co_return body;
  scheduler::InstanceLease prefill = pool.TryReserveOther(decode->model(), *decode);
  if (!prefill.instance()) co_return body;  // nowhere else to prefill: decode does it all
  // Split only towards a device that processes prompts faster. Each side
  // is measured first: an unmeasured prefill instance is tried; then, while
  // the decoding one is unmeasured, it prefills itself.
  std::optional<double> there = prefill->PromptMsPerToken(), here = decode->PromptMsPerToken();
  if (there && (!here || *there >= *here)) {
    spdlog::debug("{}no prefill split for '{}': {} takes {:.2f} ms per prompt token, {} {}",
                  log_tag, decode->model(), prefill->device(), *there, decode->device(),
                  here ? fmt::format("{:.2f}", *here) : std::string("is not measured yet"));
    co_return body;
  }
  json request = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) co_return body;
  auto split = co_await Split(prefill, *decode, std::move(engine_path), std::move(request), log_tag,
                              std::move(canceller));
  if (split.ok()) co_return std::move(split).value();
  if (split.status().code() == ErrorCode::kCancelled) {
    // The client left: the decode request that follows fails at once too.
    spdlog::debug("{}prefill of '{}' stopped: the client left", log_tag, decode->model());
    co_return body;
  }
  spdlog::warn("{}prefill split for '{}' failed, {} processes the whole prompt: {}", log_tag,
               decode->model(), decode->device(), split.status().message());
  co_return body;
}

}  // namespace zest::api
