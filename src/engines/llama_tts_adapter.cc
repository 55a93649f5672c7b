#include "engines/llama_tts_adapter.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "engines/bridged_command.h"
#include "engines/llama_server_args.h"
#include "engines/tts_server.h"
#include "engines/wav_header.h"
#include "models/gguf_reader.h"

namespace zest::engines {

namespace {

constexpr int kTokensPerChar = 10;    // why: SpeechTokenCap in the header
constexpr int kTokensPerSecond = 75;  // a second of the densest codec's frames

// The one directory the engines of `spec` may write: `runs/` in the
// instance's socket directory, which `zest tts-engine` makes (mode 0700)
// before it runs any. Each llama-tts run's private directory goes there, or
// an OuteTTS model's two llama-server sockets; the tts-engine's own socket
// stays outside, where no engine can replace it.
std::filesystem::path RunsDir(const LaunchSpec& spec) { return spec.socket.parent_path() / "runs"; }

// What an engine of `spec` sees: its model files read-only, RunsDir writable.
SandboxMounts WorkDirMounts(const LaunchSpec& spec) {
  SandboxMounts mounts;
  mounts.hidden = spec.hidden;
  mounts.readonly = spec.model_files;
  mounts.writable = {RunsDir(spec)};
  return mounts;
}

}  // namespace

int SpeechTokenCap(size_t text_chars) {
  return static_cast<int>(text_chars) * kTokensPerChar + kTokensPerSecond;
}

std::vector<std::string> LlamaTtsArgs(const LaunchSpec& spec) {
  std::vector<std::string> args = {"llama-tts", "-m", spec.model_file.string(), "-mm",
                                   spec.vocoder.string()};
  if (spec.threads > 0) args.insert(args.end(), {"-t", std::to_string(spec.threads)});
  return args;
}

std::vector<std::string> OuteTtsBackboneArgs(const LaunchSpec& spec,
                                             const std::filesystem::path& socket) {
  LlamaServerOptions o;
  o.model = spec.model_file;
  o.socket = socket;
  o.ctx_size = static_cast<int>(spec.ctx_per_slot);
  o.threads = spec.threads;
  o.placement = spec.placement;
  return LlamaServerArgs(o);
}

std::vector<std::string> OuteTtsVocoderArgs(const LaunchSpec& spec,
                                            const std::filesystem::path& socket) {
  LlamaServerOptions o;
  o.model = spec.vocoder;
  o.socket = socket;
  o.embeddings = true;
  o.ctx_size = kOuteTtsVocoderBatch;
  o.threads = spec.threads;
  // On the CPU, always: placement counts the vocoder in host memory
  // (placement_needs.h), so llama-server's own fitting must not put it on a
  // GPU the ledger does not charge. The rest of the model's settings (load
  // mode, KV cache types) carry over.
  EnginePlacement cpu = spec.placement.value_or(EnginePlacement{});
  cpu.devices.clear();
  cpu.rpc_servers.clear();
  cpu.tensor_split.clear();
  cpu.gpu_layers = 0;
  cpu.n_cpu_moe = 0;
  cpu.mmproj_on_cpu = false;
  // The vocoder is not causal: a whole utterance goes through in one batch.
  cpu.batch = kOuteTtsVocoderBatch;
  cpu.ubatch = kOuteTtsVocoderBatch;
  o.placement = cpu;
  return LlamaServerArgs(o);
}

bool LlamaTtsAdapter::IsOuteTts(const LaunchSpec& spec) const {
  if (setup_.vocoder_architecture)
    return setup_.vocoder_architecture(spec.vocoder) == "wavtokenizer-dec";
  Result<models::GgufFile> gguf = models::ReadGguf(spec.vocoder);
  return gguf.ok() && gguf->Architecture() == "wavtokenizer-dec";
}

Result<LaunchCommand> LlamaTtsAdapter::OuteTtsCommand(const LaunchSpec& spec) const {
  if (!setup_.llama_server.ok()) return Unavailable(setup_.llama_server.status().message());
  const EngineLocation& engine = *setup_.llama_server;
  const std::filesystem::path work_dir = RunsDir(spec);
  const SandboxMounts mounts = WorkDirMounts(spec);
  OuteTtsServers servers;
  servers.backbone.socket = work_dir / "backbone.sock";
  servers.vocoder.socket = work_dir / "vocoder.sock";
  servers.vocoder_batch = kOuteTtsVocoderBatch;
  servers.context = static_cast<int>(spec.ctx_per_slot);
  const bool own_network = !engine.sandboxed();  // the outer sandbox has its own
  servers.backbone.argv =
      engine.Command(OuteTtsBackboneArgs(spec, servers.backbone.socket), mounts, own_network);
  servers.vocoder.argv =
      engine.Command(OuteTtsVocoderArgs(spec, servers.vocoder.socket), mounts, own_network);
  LaunchCommand command;
  if (engine.sandboxed())
    command.argv = SandboxCommand(BridgeSandbox(engine, spec, setup_.self_exe));
  const std::vector<std::string> server =
      OuteTtsServerCommand(setup_.self_exe, spec.socket, work_dir, servers);
  command.argv.insert(command.argv.end(), server.begin(), server.end());
  command.env = engine.Environment();
  return command;
}

Result<LaunchCommand> LlamaTtsAdapter::Command(const LaunchSpec& spec) const {
  if (spec.vocoder.empty()) return InvalidArgument("a speech-out model needs its vocoder");
  if (IsOuteTts(spec)) return OuteTtsCommand(spec);
  if (!setup_.located.ok()) return Unavailable(setup_.located.status().message());
  const EngineLocation& engine = *setup_.located;
  // Each run writes its WAV into a private directory in RunsDir, which no
  // other engine sees.
  std::vector<std::string> inner = engine.Command(LlamaTtsArgs(spec), WorkDirMounts(spec),
                                                  /*own_network=*/!engine.sandboxed());
  LaunchCommand command;
  if (engine.sandboxed())
    command.argv = SandboxCommand(BridgeSandbox(engine, spec, setup_.self_exe));
  const std::vector<std::string> server =
      TtsServerCommand(setup_.self_exe, spec.socket, RunsDir(spec));
  command.argv.insert(command.argv.end(), server.begin(), server.end());
  command.argv.insert(command.argv.end(), inner.begin(), inner.end());
  command.env = engine.Environment();
  return command;
}

std::optional<std::string> LlamaTtsAdapter::PathFor(Capability capability) const {
  if (capability == Capability::kSpeech) return "/speech";
  return std::nullopt;
}

Result<EngineCall> LlamaTtsAdapter::SpeechCall(const SpeechJob& job) const {
  // Capped in proportion to the text, so a model that never stops cannot run on.
  size_t chars = 0;
  for (char c : job.text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  nlohmann::json body = {{"input", job.text}, {"n_predict", SpeechTokenCap(chars)}};
  if (job.timeout_s > 0) body["timeout_s"] = job.timeout_s;
  return EngineCall{"/speech", "application/json", body.dump()};
}

Result<SpeechAudio> LlamaTtsAdapter::ReadSpeech(int status, std::string_view body) const {
  if (status != 200) {
    // The tts-engine's own words go to the client; what the engine printed
    // (its "detail", or a body that is not the tts-engine's) only to the log.
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    std::string message = "it answered " + std::to_string(status);
    std::string detail;
    if (j.is_object() && j.contains("error") && j["error"].is_object()) {
      message = j["error"].value("message", message);
      detail = j["error"].value("detail", "");
    } else {
      detail = std::string(body.substr(0, 300));
    }
    if (!detail.empty()) spdlog::warn("speech engine: {}: {}", message, detail);
    if (status == 400) return InvalidArgument(message);
    const ErrorCode code = status == 504   ? ErrorCode::kTimeout
                           : status == 503 ? ErrorCode::kUnavailable
                                           : ErrorCode::kEngineFailed;
    const char* hint = detail.empty() ? "" : " (zest's log has the engine's output)";
    return Status(code, "the speech engine failed: " + message + hint);
  }
  Result<SpeechAudio> audio = ReadWav(std::string(body));
  if (!audio.ok()) {
    return EngineFailed("llama-tts's answer: " + audio.status().message());
  }
  return audio;
}

EngineDescription LlamaTtsAdapter::Describe(const Result<EngineInfo>* probed) const {
  EngineDescription d = EngineAdapter::Describe(probed);
  DescribeLocation(setup_.located, d);
  if (setup_.located.ok()) d.sandbox += "; run once per request by `zest tts-engine`";
  d.notes = {"speech-out models: NAME.gguf with NAME.vocoder.gguf beside it",
             "OuteTTS 0.2 with a WavTokenizer vocoder: two llama-servers per model, zest's own "
             "inverse STFT"};
  return d;
}

}  // namespace zest::engines
