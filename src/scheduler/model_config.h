// ModelConfig: what the configuration says about models, for an explicit
// load (api/admin/load_api): a model's configured options
// (`[models."name"]`), and whether engine flags a request gives may reach
// the engine of language models (its flag allow-list; every file they name
// below the directories zest serves models from). Immutable; any thread.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/result.h"
#include "engines/engine_set.h"

namespace zest::scheduler {

class ModelConfig {
 public:
  ModelConfig(std::map<std::string, config::ModelSettings> settings,
              std::shared_ptr<const engines::EngineSet> engines,
              std::vector<std::filesystem::path> model_roots)
      : settings_(std::move(settings)),
        engines_(std::move(engines)),
        model_roots_(std::move(model_roots)) {}

  // The model's options from the configuration; empty (zest decides) when
  // it has none.
  config::ModelSettings Configured(const std::string& model) const;

  // kInvalidArgument (or kUnavailable without an engine) unless `args` may
  // be passed to the engine of language models. Checked again at each start.
  Status CheckExtraArgs(const std::vector<std::string>& args) const;

 private:
  const std::map<std::string, config::ModelSettings> settings_;
  const std::shared_ptr<const engines::EngineSet> engines_;
  const std::vector<std::filesystem::path> model_roots_;
};

}  // namespace zest::scheduler
