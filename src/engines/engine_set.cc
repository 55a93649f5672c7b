#include "engines/engine_set.h"

namespace zest::engines {

EngineSet::EngineSet(std::unique_ptr<EngineAdapter> language, std::unique_ptr<EngineAdapter> npu,
                     std::unique_ptr<EngineAdapter> speech, std::unique_ptr<EngineAdapter> images,
                     std::unique_ptr<AudioConverter> audio,
                     std::unique_ptr<ImageConverter> pictures, std::unique_ptr<EngineAdapter> tts)
    : language_(std::move(language)),
      npu_(std::move(npu)),
      speech_(std::move(speech)),
      images_(std::move(images)),
      audio_(std::move(audio)),
      pictures_(std::move(pictures)),
      tts_(std::move(tts)) {}

Result<const EngineAdapter*> EngineSet::For(const EngineChoice& choice) const {
  const EngineAdapter* adapter = choice.speech   ? speech_.get()
                                 : choice.tts    ? tts_.get()
                                 : choice.images ? images_.get()
                                 : choice.on_npu ? npu_.get()
                                                 : language_.get();
  if (adapter == nullptr) {
    return Unavailable(std::string("no engine for ") +
                       (choice.speech   ? "speech-to-text"
                        : choice.tts    ? "text-to-speech (llama-tts)"
                        : choice.images ? "image generation"
                        : choice.on_npu ? "the NPU"
                                        : "language models") +
                       " is set up");
  }
  return adapter;
}

const EngineAdapter* EngineSet::Named(std::string_view name) const {
  for (const EngineAdapter* adapter : All()) {
    if (name == adapter->name()) return adapter;
  }
  return nullptr;
}

std::vector<const EngineAdapter*> EngineSet::All() const {
  std::vector<const EngineAdapter*> all;
  for (const auto* adapter :
       {language_.get(), npu_.get(), speech_.get(), images_.get(), tts_.get()}) {
    if (adapter != nullptr) all.push_back(adapter);
  }
  return all;
}

}  // namespace zest::engines
