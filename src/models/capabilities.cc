#include "models/capabilities.h"

namespace zest::models {

std::vector<std::string> Capabilities(const ModelEntry& model) {
  const ModelInfo& info = model.info;
  if (info.speech || info.image || info.tts) return {};
  if (info.embedding) return {"embedding"};
  std::vector<std::string> out = {"completion"};
  if (!model.mmproj.empty() && model.projector.has_vision) out.push_back("vision");
  if (info.template_tools) out.push_back("tools");
  if (info.template_thinking) out.push_back("thinking");
  return out;
}

}  // namespace zest::models
