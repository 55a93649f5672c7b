// LlamaServerAdapter: llama.cpp's llama-server, zest's main engine. It
// listens on the instance's UNIX socket (--host PATH.sock) inside the
// sandbox (sandbox.h), answers as the model's zest name (--alias), saves
// slots, serves chat, completions, embeddings and rerank at llama-server's
// OpenAI paths, and takes the engine flags llama_server_flags.h allows.
#pragma once

#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/recipe_verdicts.h"

namespace zest::engines {

class LlamaServerAdapter : public EngineAdapter {
 public:
  // `located`: where llama-server is; an error makes every load fail with
  // its message.
  explicit LlamaServerAdapter(Result<EngineLocation> located) : located_(std::move(located)) {}

  const char* name() const override { return "llama-server"; }
  const char* recipe() const override { return kLlamaCppRecipe; }
  Status Available() const override { return located_.status(); }
  Result<LaunchCommand> Command(const LaunchSpec& spec) const override;
  std::optional<std::string> PathFor(Capability capability) const override;
  // Its own Anthropic route counts a Messages request's tokens.
  Result<EngineCall> TokenCountCall(const ChatRequest& request,
                                    const std::string& model) const override;
  Result<uint64_t> ReadTokenCount(int status, std::string_view body) const override;
  bool saves_slots() const override { return true; }
  // llama-server runs a non-streamed task to its end when its client goes
  // (llama.cpp issue 9273; measured with build 11669: the engine busy 11 s
  // after the client left, against 60 ms streamed), holding a slot zest
  // would already count as free; a streamed one stops at the next token.
  // So chats and completions are asked as streams, except those that ask
  // for logprobs: its stream leaves out the logprobs of tokens without
  // text (a control token such as <s>, seen with the synthetic model).
  bool AsksAsStream(const ChatRequest& request) const override;
  bool learns_memory() const override { return true; }
  Status CheckExtraArgs(const std::vector<std::string>& args,
                        const std::vector<std::filesystem::path>& model_roots) const override;

  // It runs with --metrics: its throughput, cache reuse, decode batching
  // and deferred requests, which zest cannot see itself.
  std::optional<EngineMetrics> metrics() const override;
  bool probes_devices() const override { return true; }
  Result<EngineInfo> ProbeDevices() const override;  // --version, --list-devices
  Result<EngineDevice> ProbeRpcWorker(const std::string& endpoint) const override;
  EngineDescription Describe(const Result<EngineInfo>* probed) const override;

  const Result<EngineLocation>& location() const { return located_; }

 private:
  const Result<EngineLocation> located_;
};

}  // namespace zest::engines
