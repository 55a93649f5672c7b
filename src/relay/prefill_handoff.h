// Prefill/decode split (experimental; scheduler.split_prefill_tokens): a
// long prompt is processed by one instance of the model and its KV cache
// handed to the instance that will decode, on another device, through
// llama-server's slot save and restore in a directory both engines write
// (PoolOptions::handoff_dir). This is the scheme of Ryzen AI's hybrid mode
// (NPU prefill, iGPU decode): it pays when one device is much faster at
// processing prompts and another at generating, and the copy of the KV
// cache costs less than the difference. bench/prefill_split.mjs measures it.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>

#include "engines/chat_request.h"
#include "http/upstream_client.h"
#include "scheduler/instance_dispatch.h"

namespace zest::relay {

// Prefills `request` (a chat or text completion) on another instance of
// `decode`'s model, if one on another device has a free slot and is not
// measured slower at prompts than `decode`, and restores the result into
// an idle slot of `decode`. Returns that slot, which the request to
// `decode` is pinned to (ChatCallOptions::slot, with its prompt cache), so
// the engine only processes what the prefill did not; nullopt when there is
// no other instance or any step fails (logged): `decode` does all the work.
// `client_model` is the model's name as the client gave it, for engines
// that take no name of their own. `canceller` is the request's: when the
// client leaves, the prefill stops with it.
boost::asio::awaitable<std::optional<int>> HandOffPrefill(
    scheduler::InstanceDispatch& pool, std::shared_ptr<scheduler::Instance> decode,
    std::shared_ptr<const engines::ChatRequest> request, std::string client_model,
    std::string log_tag, std::shared_ptr<http::UpstreamCanceller> canceller);

}  // namespace zest::relay
