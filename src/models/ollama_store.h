// OllamaStore: the models Ollama downloaded, read in place (never written).
// Ollama's layout under its models directory (OLLAMA_MODELS, else
// ~/.ollama/models; /usr/share/ollama/.ollama/models for its system
// service):
//   manifests/<host>/<namespace>/<model>/<tag>   JSON: {"layers": [{"mediaType",
//                                                "digest": "sha256:<hex>", "size"}]}
//   blobs/sha256-<hex>                           each layer's bytes
// The layer of media type application/vnd.ollama.image.model is the GGUF,
// ...image.projector its vision projector, ...image.system the Modelfile's
// SYSTEM text, ...image.params its PARAMETERs (a JSON object of Ollama
// options), ...image.template its TEMPLATE (a Go template: zest cannot run
// it; the engine uses the chat template inside the GGUF).
// Names are Ollama's own: "<model>:<tag>" for registry.ollama.ai/library,
// "<namespace>/<model>:<tag>" for another namespace there, and
// "<host>/<namespace>/<model>:<tag>" for another registry; tag "latest" is
// left off (zest's Ollama API shows it back, and both spellings find the
// model, as in Ollama).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace zest::models {

// NOLINTNEXTLINE(bugprone-exception-escape): json member; moving it does not throw
struct OllamaModel {
  std::string name;
  std::filesystem::path manifest;
  std::filesystem::path model;      // blobs/sha256-<hex>: a GGUF
  std::string model_sha256;         // its <hex>
  std::filesystem::path projector;  // empty: none
  std::string projector_sha256;
  std::string system;         // empty: none
  nlohmann::json parameters;  // an object; empty: none
  bool has_template = false;  // the manifest has a TEMPLATE zest does not run
};

class OllamaStore {
 public:
  explicit OllamaStore(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }

  // Every manifest with a model layer whose blob is present, sorted by
  // name. Reads the manifests and the small text layers, not the blobs.
  std::vector<OllamaModel> List() const;

  // The name Ollama shows for a manifest at <host>/<namespace>/<model>/<tag>.
  static std::string DisplayName(const std::string& host, const std::string& ns,
                                 const std::string& model, const std::string& tag);

 private:
  std::filesystem::path root_;
};

}  // namespace zest::models
