// Fuzzes the validation of OpenAI inference request bodies
// (api/openai/request_parse) for every endpoint, with small limits so the
// message and token checks are reached, and the rewrite of a named
// tool_choice (api/openai/tool_choice).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/openai/request_parse.h"
#include "api/openai/tool_choice.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zest::api::openai;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  RequestLimits limits{8, 1000};
  for (Endpoint endpoint :
       {Endpoint::kChatCompletions, Endpoint::kCompletions, Endpoint::kEmbeddings}) {
    std::string param;
    auto parsed = ParseInferenceRequest(endpoint, body, &param, limits);
    if (parsed.ok() && parsed->model.empty()) __builtin_trap();  // the contract says non-empty
    // A named tool_choice is rewritten (tool_choice.h): an error or a body
    // that names no tool any more.
    if (parsed.ok() && parsed->names_a_tool) {
      auto forced = WithNamedToolForced(body);
      if (forced.ok()) {
        auto again = ParseInferenceRequest(endpoint, *forced, &param, limits);
        if (!again.ok() || again->names_a_tool) __builtin_trap();
      }
    }
  }
  return 0;
}
