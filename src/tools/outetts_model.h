// A synthetic speech-out model in OuteTTS 0.2's shape: an OuteTTS-style
// backbone (a llama GGUF whose vocabulary has OuteTTS's special tokens and
// the audio-code tokens at OuteTTS-0.2's ids) and a WavTokenizer vocoder
// beside it (architecture wavtokenizer-dec, every tensor llama.cpp's loader
// requires, tiny widths). zest serves such a pair on two llama-servers
// (engines/outetts_engine.h): the backbone's /completion writes codes, the
// vocoder's /embedding turns them into STFT frames. (The engine rootfs's
// llama-tts, the libmtmd rewrite of llama.cpp's tools/tts, PR 26254,
// rejects this vocoder.) The weights are random, except that the backbone
// is steered to write only audio codes and never end: it always writes its
// whole n_predict budget, so the audio (24 kHz mono 16-bit noise) lasts a
// predictable kOuteTtsSecondsPerCode per code. Checked by reading the files
// back (outetts_model_test.cc) and by the node suite that serves it
// (tests/integration/speech_out_outetts.test.mjs). Tests only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/result.h"

namespace zest::tools {

// What OuteTTS 0.2 fixes (and llama.cpp's old tools/tts/tts.cpp hard-coded): audio codes are the
// tokens kOuteTtsFirstCodeToken.. (code = token - kOuteTtsFirstCodeToken), the vocoder's output per
// code is 1282 wide (641 magnitudes and phases of a 1280-point FFT), hop 320 samples at 24000 Hz:
// 75 codes a second.
inline constexpr uint32_t kOuteTtsFirstCodeToken = 151672;
inline constexpr uint32_t kOuteTtsCodebookSize =
    4096;  // WavTokenizer-75's; the vocoder's vocabulary
inline constexpr uint32_t kOuteTtsVocoderOutput = 1282;
inline constexpr uint32_t kOuteTtsSampleRate = 24000;
inline constexpr uint32_t kOuteTtsHopSamples = 320;
inline constexpr double kOuteTtsSecondsPerCode =
    static_cast<double>(kOuteTtsHopSamples) / kOuteTtsSampleRate;
// OuteTTS-0.2-500M's vocabulary size (Qwen2's tokens, then OuteTTS's).
inline constexpr uint32_t kOuteTtsBackboneVocab = 157696;

struct OuteTtsModelSpec {
  std::string name = "zest-synthetic-tts";
  // Backbone (llama architecture). The vocabulary is fixed (kOuteTtsBackboneVocab
  // entries), so the embedding and output matrices dominate the file size:
  // 16 wide in F16 is about 5 MB each.
  uint32_t layers = 1;
  uint32_t embedding = 16;
  uint32_t heads = 1;
  uint32_t feed_forward = 32;
  uint32_t context = 8192;  // OuteTTS 0.2's; zest's backbone takes min(this, kTtsContext)
  // Vocoder widths (features, posnet and convnext, feed-forward); posnet
  // has WavTokenizer's six blocks, convnext `vocoder_layers`.
  uint32_t vocoder_features = 16;
  uint32_t vocoder_embedding = 32;  // a multiple of vocoder_groups
  uint32_t vocoder_groups = 8;      // group norm groups
  uint32_t vocoder_feed_forward = 64;
  uint32_t vocoder_layers = 1;
  uint64_t seed = 1;
};

// Where the vocoder of the backbone at `backbone` goes: NAME.gguf ->
// NAME.vocoder.gguf in the same directory.
std::filesystem::path OuteTtsVocoderPath(const std::filesystem::path& backbone);

// Writes the backbone at `backbone` and the vocoder at OuteTtsVocoderPath(backbone).
// kInvalidArgument for shapes llama.cpp cannot run. Atomic per file like
// GgufWriter (a reader sees no file or a whole one).
Status WriteOuteTtsModel(const OuteTtsModelSpec& spec, const std::filesystem::path& backbone);

// The duration of n + 1 codes of this model's audio: what the old llama-tts
// wrote for `--n-predict n` (it sampled one token more). zest's OuteTTS
// route speaks one code per token its backbone returns, n_predict at most.
double OuteTtsWavSeconds(uint32_t n_predict);

}  // namespace zest::tools
