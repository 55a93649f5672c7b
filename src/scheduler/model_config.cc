#include "scheduler/model_config.h"

namespace zest::scheduler {

config::ModelSettings ModelConfig::Configured(const std::string& model) const {
  auto it = settings_.find(model);
  return it != settings_.end() ? it->second : config::ModelSettings{};
}

Status ModelConfig::CheckExtraArgs(const std::vector<std::string>& args) const {
  const engines::EngineAdapter* language = engines_ ? engines_->language() : nullptr;
  if (language == nullptr) return args.empty() ? Status::Ok() : Unavailable("no engine is set up");
  return language->CheckExtraArgs(args, model_roots_);
}

}  // namespace zest::scheduler
