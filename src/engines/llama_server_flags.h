// The llama-server flags (build 11669) a user may pass in a model's
// `extra_args`: sampling defaults, context and batching behaviour, RoPE and
// YaRN, KV-cache and offload switches, speculative decoding, chat-template
// and reasoning choices, logging detail. Everything else is refused: flags
// zest sets itself (socket, model, placement, slots), and every flag that
// reaches outside the engine (tools, MCP servers, files written, downloads,
// the web UI, CORS). Files named by flags (chat templates, grammars, draft
// models, LoRA adapters, control vectors) must be files zest serves; they
// are bound read-only into the engine's sandbox. Pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_flags.h"

namespace zest::engines {

const FlagTable& LlamaServerFlags();

// ParseEngineFlags over LlamaServerFlags(): the checked flags, canonical
// spellings, paths not yet resolved.
Result<std::vector<EngineFlag>> CheckLlamaServerArgs(const std::vector<std::string>& args);

}  // namespace zest::engines
