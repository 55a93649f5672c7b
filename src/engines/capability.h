// Capability: what a request asks of an engine (chat, embeddings, speech
// to text...). An adapter serves some of these for a model, each at a path
// of its own (EngineAdapter::PathFor).
#pragma once

namespace zest::engines {

// What a request asks of an engine. An adapter serves some of these for a
// model (Serves), each at a path of its own (PathFor).
enum class Capability {
  kChat,
  kCompletions,
  kEmbeddings,
  kRerank,
  kTranscription,
  kImages,
  // Text to speech (speech.h): a SpeechJob in, WAV out.
  kSpeech,
  // The model's tokenizer: text to token ids ({"content", "add_special",
  // "with_pieces"} → {"tokens"}) and back ({"tokens"} → {"content"}), in
  // llama-server's shape.
  kTokenize,
  kDetokenize,
};
const char* CapabilityName(Capability capability);  // "chat", "transcription", ...

}  // namespace zest::engines
