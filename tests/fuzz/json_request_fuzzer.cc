// Fuzzes the reading of OpenAI inference request bodies into the typed
// request (api/openai/request_parse) for every kind, with small limits so
// the message and token checks are reached; the rewrite of a named
// tool_choice (api/request/tool_choice); and the request written back as
// the engine's JSON (engines/openai_request_json).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/openai/request_parse.h"
#include "api/request/tool_choice.h"
#include "engines/openai_request_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zest;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  api::RequestLimits limits{8, 1000};
  for (engines::Capability kind : {engines::Capability::kChat, engines::Capability::kCompletions,
                                   engines::Capability::kEmbeddings}) {
    std::string param;
    auto parsed = api::openai::ParseInferenceRequest(kind, body, &param, limits);
    if (!parsed.ok()) continue;
    if (parsed->model.empty()) __builtin_trap();  // the contract says non-empty
    // A named tool_choice is rewritten (tool_choice.h): an error, or a
    // request that names no tool any more and has exactly that tool.
    if (api::ForceNamedTool(*parsed).ok() && parsed->tool_choice &&
        parsed->tool_choice->mode == engines::ToolChoice::Mode::kFunction) {
      __builtin_trap();
    }
    // Written back, it is a JSON object that reads again.
    const std::string text = engines::OpenAiRequestText(*parsed, {.model = "m"});
    auto again = api::openai::ParseInferenceRequest(kind, text, &param, limits);
    if (!again.ok()) __builtin_trap();
  }
  return 0;
}
