#include "relay/prefill_handoff.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <filesystem>
#include <optional>

#include "http/upstream_client.h"
#include "relay/engine_speed.h"
#include "relay/inference_metrics.h"
#include "scheduler/slot_cache.h"
#include "scheduler/slot_files.h"

namespace zest::relay {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

constexpr std::size_t kMaxPrefillReplyBytes = 4u << 20;

double MsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Runs the split; the decode instance's slot with the prompt in it, or the
// error that made it stop.
asio::awaitable<Result<int>> Split(scheduler::InstanceLease& prefill,
                                   const scheduler::Instance& decode,
                                   const engines::ChatRequest& request, std::string client_model,
                                   std::string log_tag,
                                   std::shared_ptr<http::UpstreamCanceller> canceller) {
  static std::atomic<uint64_t> next_id{0};
  const std::string name = "handoff-" + std::to_string(++next_id) + ".bin";
  auto executor = co_await asio::this_coro::executor;
  const auto start = std::chrono::steady_clock::now();
  if (prefill->engine == nullptr) co_return Internal("the prefill instance has no engine adapter");
  auto prefill_slot = co_await scheduler::IdleSlot(prefill->socket());
  if (!prefill_slot.ok()) co_return prefill_slot.status();
  auto decode_slot = co_await scheduler::IdleSlot(decode.socket());
  if (!decode_slot.ok()) co_return decode_slot.status();

  // The prompt run alone on the prefill instance: one token generated (the
  // engine needs at least one step), not streamed, pinned to its slot.
  engines::ChatCallOptions alone;
  alone.model = prefill->engine_model.empty() ? std::move(client_model) : prefill->engine_model;
  alone.slot = *prefill_slot;
  alone.prompt_only = true;
  Result<engines::EngineCall> call = prefill->engine->ChatCall(request, alone);
  if (!call.ok()) co_return call.status();
  http::UpstreamRequest up;
  up.method = "POST";
  up.target = std::move(call->path);
  up.headers = {{"Content-Type", std::move(call->content_type)}};
  up.body = std::move(call->body);
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
  co_return *decode_slot;
}

}  // namespace

asio::awaitable<std::optional<int>> HandOffPrefill(
    scheduler::InstanceDispatch& pool, std::shared_ptr<scheduler::Instance> decode,
    std::shared_ptr<const engines::ChatRequest> request, std::string client_model,
    std::string log_tag, std::shared_ptr<http::UpstreamCanceller> canceller) {
  if (decode->slot_dir.empty()) co_return std::nullopt;
  scheduler::InstanceLease prefill = pool.TryReserveOther(decode->model(), *decode);
  if (!prefill.instance()) co_return std::nullopt;  // nowhere else to prefill: decode does it all
  // Split only towards a device that processes prompts faster. Each side
  // is measured first: an unmeasured prefill instance is tried; then, while
  // the decoding one is unmeasured, it prefills itself.
  std::optional<double> there = prefill->PromptMsPerToken(), here = decode->PromptMsPerToken();
  if (there && (!here || *there >= *here)) {
    spdlog::debug("{}no prefill split for '{}': {} takes {:.2f} ms per prompt token, {} {}",
                  log_tag, decode->model(), prefill->device(), *there, decode->device(),
                  here ? fmt::format("{:.2f}", *here) : std::string("is not measured yet"));
    co_return std::nullopt;
  }
  auto split = co_await Split(prefill, *decode, *request, std::move(client_model), log_tag,
                              std::move(canceller));
  if (split.ok()) co_return *split;
  if (split.status().code() == ErrorCode::kCancelled) {
    // The client left: the decode request that follows fails at once too.
    spdlog::debug("{}prefill of '{}' stopped: the client left", log_tag, decode->model());
    co_return std::nullopt;
  }
  spdlog::warn("{}prefill split for '{}' failed, {} processes the whole prompt: {}", log_tag,
               decode->model(), decode->device(), split.status().message());
  co_return std::nullopt;
}

}  // namespace zest::relay
