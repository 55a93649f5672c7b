#include "engines/engine_adapter.h"

#include "engines/openai_request_json.h"

namespace zest::engines {

const char* CapabilityName(Capability capability) {
  switch (capability) {
    case Capability::kChat:
      return "chat";
    case Capability::kCompletions:
      return "completions";
    case Capability::kEmbeddings:
      return "embeddings";
    case Capability::kRerank:
      return "rerank";
    case Capability::kTranscription:
      return "transcription";
    case Capability::kImages:
      return "images";
    case Capability::kSpeech:
      return "speech";
    case Capability::kTokenize:
      return "tokenize";
    case Capability::kDetokenize:
      return "detokenize";
  }
  return "other";
}

void DescribeLocation(const Result<EngineLocation>& located, EngineDescription& d) {
  if (!located.ok()) return;
  d.source = EngineSourceName(located->source);
  d.binary = located->binary.string();
  d.rootfs = located->rootfs.string();
  d.sandboxed = located->sandboxed();
  d.sandbox = located->SandboxNote();
}

Result<EngineInfo> EngineAdapter::ProbeDevices() const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " is not probed for devices");
}

Result<EngineDevice> EngineAdapter::ProbeRpcWorker(const std::string&) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " cannot use RPC workers");
}

EngineDescription EngineAdapter::Describe(const Result<EngineInfo>* probed) const {
  EngineDescription d;
  d.name = name();
  d.available = Available();
  for (Capability c :
       {Capability::kChat, Capability::kCompletions, Capability::kEmbeddings, Capability::kRerank,
        Capability::kTranscription, Capability::kImages, Capability::kSpeech}) {
    if (PathFor(c)) d.serves.push_back(CapabilityName(c));
  }
  if (probed != nullptr && probed->ok()) {
    d.probed = true;
    d.version = (*probed)->version;
    d.devices = (*probed)->devices;
  } else if (probed != nullptr) {
    d.probed = true;
    d.probe_error = probed->status().message();
  }
  return d;
}

Result<EngineCall> EngineAdapter::ChatCall(const ChatRequest& request,
                                           const ChatCallOptions& options) const {
  std::optional<std::string> path = PathFor(request.kind);
  if (!path) {
    return Status(ErrorCode::kUnsupported,
                  std::string(name()) + " does not serve " + CapabilityName(request.kind));
  }
  return EngineCall{*path, "application/json", OpenAiRequestText(request, options)};
}

Status EngineAdapter::CheckExtraArgs(const std::vector<std::string>& args,
                                     const std::vector<std::filesystem::path>&) const {
  if (args.empty()) return Status::Ok();
  return InvalidArgument(std::string(name()) +
                         " takes no extra engine flags (given: " + args.front() + ")");
}

Result<EngineCall> EngineAdapter::TranscriptionCall(const TranscriptionJob&) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not transcribe speech");
}

Result<Transcript> EngineAdapter::ReadTranscript(int, std::string_view) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not transcribe speech");
}

Result<EngineCall> EngineAdapter::SpeechCall(const SpeechJob&) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not speak");
}

Result<SpeechAudio> EngineAdapter::ReadSpeech(int, std::string_view) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not speak");
}

Result<EngineCall> EngineAdapter::ImageCall(const ImageJob&) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not generate images");
}

Result<GeneratedImages> EngineAdapter::ReadImages(int, std::string_view) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not generate images");
}

Result<EngineCall> EngineAdapter::TokenCountCall(const ChatRequest&, const std::string&) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not count tokens");
}

Result<uint64_t> EngineAdapter::ReadTokenCount(int, std::string_view) const {
  return Status(ErrorCode::kUnsupported, std::string(name()) + " does not count tokens");
}

}  // namespace zest::engines
