// EngineAdapter: what zest knows about one kind of engine (llama-server,
// FastFlowLM, whisper-server, sd-server), behind one interface, so that the scheduler
// and the API layer never name an engine. From an instance's launch spec an
// adapter gives the command (argv, environment, sandbox), how to tell the
// engine is ready, what it serves and at which path, how its slots work, and
// how the relay treats it (model names, a client's disconnect).
//
// Adapters are immutable once made (EngineSet, engine_set.h) and shared by
// every instance of their kind: thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/capability.h"
#include "engines/chat_request.h"
#include "engines/engine_probe.h"
#include "engines/image_generation.h"
#include "engines/llama_server_args.h"
#include "engines/speech.h"
#include "engines/transcription.h"

namespace zest::engines {

// One instance to start, as the scheduler decided it. Engine-neutral: each
// adapter takes what its engine has flags for.
struct LaunchSpec {
  std::string model_name;  // zest's name; the engine answers with it where it can
  std::filesystem::path model_file;
  // Every file the engine reads for the model (shards, projector), bound
  // read-only into the sandbox and nothing else of their directories.
  std::vector<std::filesystem::path> model_files;
  std::filesystem::path mmproj;   // vision projector; empty = none
  std::filesystem::path vocoder;  // a speech-out model's vocoder; empty = none
  bool embeddings = false;        // an embedding model
  bool reranking = false;         // a reranker (rank pooling; embeddings too)
  // Where zest connects (a UNIX socket in a directory the engine alone has).
  std::filesystem::path socket;
  std::filesystem::path slot_dir;            // slot save/restore files; empty = none
  int parallel = 1;                          // requests it runs at once
  uint64_t ctx_per_slot = 0;                 // context per request; 0 = the model's own
  int threads = 0;                           // CPU threads; 0 = the engine's default
  bool software_gpu = false;                 // its "GPU" is llvmpipe: threads of its own
  std::optional<EnginePlacement> placement;  // devices, layers, KV cache
  std::vector<std::string> extra_args;       // the user's engine flags, unchecked
  // Speculative decoding (llama-server only); its draft model is among
  // model_files too.
  SpeculativeArgs speculative;
  std::string engine_checkpoint;  // the engine's own model tag (FastFlowLM)
  // Roots below which files named by engine flags must lie.
  std::vector<std::filesystem::path> model_roots;
  // Hidden from the engine (zest's home: keys, config, logs).
  std::vector<std::filesystem::path> hidden;
  // zest asks every request for an API key (http::Authenticator::enabled).
  // An engine with RPC workers shares zest's network namespace and so
  // reaches zest's port on loopback: it starts only when this holds.
  bool keys_required = false;
};

// What starts the engine: its argv (sandbox wrapper included) and its whole
// environment.
struct LaunchCommand {
  std::vector<std::string> argv;
  std::vector<std::string> env;
};

// What `zest system` and `zest engines` say of an engine.
struct EngineDescription {
  std::string name;
  Status available;    // Ok: installed
  std::string source;  // "rootfs", "system", "configured"; empty when unknown
  std::string binary;
  std::string rootfs;  // empty unless run from the engine rootfs
  bool sandboxed = false;
  std::string sandbox;              // how it is isolated, in words
  std::vector<std::string> serves;  // CapabilityName of each capability
  std::vector<std::string> notes;   // what a user should know (formats it reads...)
  // Filled when the engine was asked which devices it sees (ProbeDevices).
  bool probed = false;
  std::string version;
  std::vector<EngineDevice> devices;  // what it runs on; empty = the CPU
  std::string probe_error;            // the probe failed: why
};

// One of an engine's own Prometheus families that zest re-exports.
struct EngineMetric {
  const char* engine_name;  // without the engine's prefix
  const char* zest_name;    // "zest_engine_..."
  const char* type;         // "counter", "gauge"
};

// An engine's own Prometheus metrics (api/engine_scrape.h re-exports them).
struct EngineMetrics {
  const char* path;    // where it serves them: "/metrics"
  const char* prefix;  // its family names' prefix
  std::span<const EngineMetric> families;
};

// Fills the location fields of `d` (source, binary, rootfs, sandbox).
void DescribeLocation(const Result<EngineLocation>& located, EngineDescription& d);

class EngineAdapter {
 public:
  virtual ~EngineAdapter() = default;

  // "llama-server": for logs, `zest system` and metrics labels.
  virtual const char* name() const = 0;
  // Its recipe (recipe_verdicts.h: "llamacpp", "flm"...): what `zest ps -v`
  // and /api/v1/health say an instance runs with.
  virtual const char* recipe() const = 0;
  // Ok when the engine is installed; else why not (every load says so).
  virtual Status Available() const = 0;

  virtual Result<LaunchCommand> Command(const LaunchSpec& spec) const = 0;

  // What answers 200 once the engine is up (readiness and the watchdog).
  virtual const char* ready_path() const { return "/health"; }
  // The engine's path for `capability`; nullopt when it does not serve it.
  virtual std::optional<std::string> PathFor(Capability capability) const = 0;
  // The name the engine knows the model by in requests and answers, when it
  // is not zest's (the relay swaps the two); empty = zest's.
  virtual std::string EngineModelName(const LaunchSpec&) const { return ""; }
  // Whether it saves and restores slots (--slot-save-path).
  virtual bool saves_slots() const { return false; }
  // A generation request (chat_request.h) in the engine's shape, at
  // PathFor(request.kind). The default: OpenAI's JSON as llama-server reads
  // it (openai_request_json.h), which FastFlowLM takes too; kUnsupported
  // where the engine does not serve the request's kind.
  virtual Result<EngineCall> ChatCall(const ChatRequest& request,
                                      const ChatCallOptions& options) const;
  // Whether a non-streamed `request` is asked of it as a stream
  // (ChatCallOptions::as_stream; relay/stream_assembly.h puts the answer
  // together), so that a client that leaves stops it at once.
  virtual bool AsksAsStream(const ChatRequest& /*request*/) const { return false; }
  // Whether the memory ledger learns from its measured RSS (the ledger's
  // model is this engine's memory).
  virtual bool learns_memory() const { return false; }
  // Whether `args` may be given to it (engine flags by allow-list, files
  // they name below `model_roots`). The default: none at all.
  virtual Status CheckExtraArgs(const std::vector<std::string>& args,
                                const std::vector<std::filesystem::path>& model_roots) const;

  // Speech to text (Capability::kTranscription): the job as a request in
  // the engine's shape (kInvalidArgument for what the engine cannot take,
  // e.g. an unknown language), and its answer as a Transcript (kInvalidArgument
  // when it could not decode the audio). Default: kUnsupported.
  virtual Result<EngineCall> TranscriptionCall(const TranscriptionJob& job) const;
  virtual Result<Transcript> ReadTranscript(int status, std::string_view body) const;

  // Text to speech (Capability::kSpeech): the job as a request in the
  // engine's shape, and its answer as WAV (kUnavailable when the engine
  // failed or was killed). Default: kUnsupported.
  virtual Result<EngineCall> SpeechCall(const SpeechJob& job) const;
  virtual Result<SpeechAudio> ReadSpeech(int status, std::string_view body) const;

  // Image generation (Capability::kImages): the job as a request in the
  // engine's shape, and its answer (kInvalidArgument for a job the engine
  // refused). Default: kUnsupported.
  virtual Result<EngineCall> ImageCall(const ImageJob& job) const;
  virtual Result<GeneratedImages> ReadImages(int status, std::string_view body) const;

  // Token counting (Anthropic's /v1/messages/count_tokens): the input
  // tokens of a chat request (its messages, tools and tool choice; `model`
  // the engine's name for the model), counted with the model's chat
  // template and tokenizer, as a request in the engine's shape; and its
  // answer. Default: kUnsupported.
  virtual Result<EngineCall> TokenCountCall(const ChatRequest& request,
                                            const std::string& model) const;
  virtual Result<uint64_t> ReadTokenCount(int status, std::string_view body) const;

  // Its own Prometheus metrics; nullopt when it serves none.
  virtual std::optional<EngineMetrics> metrics() const { return std::nullopt; }

  // Whether the engine can be asked which devices it sees (ProbeDevices):
  // the devices placement may put its models on.
  virtual bool probes_devices() const { return false; }
  // Blocking (runs the engine, a second or so): never on an I/O thread.
  // Default: kUnsupported.
  virtual Result<EngineInfo> ProbeDevices() const;
  // The device a ggml RPC worker at `endpoint` serves, as this engine would
  // use it (rpc_backend.h). Blocking, like ProbeDevices. Default: kUnsupported.
  virtual Result<EngineDevice> ProbeRpcWorker(const std::string& endpoint) const;

  // For `zest system`: found or not, what it serves, and with `probed`
  // (ProbeDevices' answer, null when not asked) what it runs on. The
  // default has the name, Available() and the capabilities PathFor answers.
  virtual EngineDescription Describe(const Result<EngineInfo>* probed = nullptr) const;
};

}  // namespace zest::engines
