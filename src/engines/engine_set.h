// EngineSet: the engines zest can run, one adapter each (engine_adapter.h),
// and which one serves a model. Made once at start-up (app/server_app.cc)
// and shared read-only: thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "engines/audio_converter.h"
#include "engines/engine_adapter.h"
#include "engines/image_converter.h"

namespace zest::engines {

// Engine-neutral facts that decide a model's engine.
struct EngineChoice {
  bool speech = false;  // a speech-to-text model (a whisper.cpp model file)
  bool on_npu = false;  // placed on the NPU
  bool images = false;  // an image generation model
  bool tts = false;     // a speech-out model (a backbone and its vocoder)
};

class EngineSet {
 public:
  // `language`: serves GGUF language and embedding models on CPUs and GPUs;
  // `npu`: language models placed on the NPU; `speech`: speech-to-text;
  // `images`: image generation; `tts`: speech out. Any may be null (that kind of model cannot
  // be served).
  // `audio`: converts uploads the speech engine does not decode; `pictures`:
  // converts the image engine's PNGs into other formats (null: none).
  EngineSet(std::unique_ptr<EngineAdapter> language, std::unique_ptr<EngineAdapter> npu,
            std::unique_ptr<EngineAdapter> speech, std::unique_ptr<EngineAdapter> images = nullptr,
            std::unique_ptr<AudioConverter> audio = nullptr,
            std::unique_ptr<ImageConverter> pictures = nullptr,
            std::unique_ptr<EngineAdapter> tts = nullptr);

  // The adapter for a model; kUnavailable naming the missing kind when this
  // set has none for it.
  Result<const EngineAdapter*> For(const EngineChoice& choice) const;
  // Every adapter in the set, for `zest system` and the logs.
  std::vector<const EngineAdapter*> All() const;
  const EngineAdapter* language() const { return language_.get(); }
  // The adapter whose name() is `name`; null when none.
  const EngineAdapter* Named(std::string_view name) const;
  const EngineAdapter* npu() const { return npu_.get(); }
  const EngineAdapter* speech() const { return speech_.get(); }
  const EngineAdapter* images() const { return images_.get(); }
  const EngineAdapter* tts() const { return tts_.get(); }
  const AudioConverter* audio_converter() const { return audio_.get(); }
  const ImageConverter* image_converter() const { return pictures_.get(); }

 private:
  const std::unique_ptr<EngineAdapter> language_;
  const std::unique_ptr<EngineAdapter> npu_;
  const std::unique_ptr<EngineAdapter> speech_;
  const std::unique_ptr<EngineAdapter> images_;
  const std::unique_ptr<AudioConverter> audio_;
  const std::unique_ptr<ImageConverter> pictures_;
  const std::unique_ptr<EngineAdapter> tts_;
};

}  // namespace zest::engines
