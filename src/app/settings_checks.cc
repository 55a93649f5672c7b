#include "app/settings_checks.h"

#include <string>

#include "app/service_options.h"
#include "engines/engine_discovery.h"
#include "models/model_aliases.h"

namespace zest::app {

Status CheckEngineFlags(const config::Settings& s) {
  for (const auto& [name, model] : s.model_settings) {
    if (Status flags = engines::CheckLanguageEngineFlags(model.extra_args); !flags.ok()) {
      return InvalidArgument("models.\"" + name + "\".extra_args: " + flags.message());
    }
  }
  return Status::Ok();
}

Status CheckAliases(const config::Settings& s) {
  for (const models::ModelAlias& alias : AliasesFor(s)) {
    ZEST_RETURN_IF_ERROR(models::CheckAlias(alias));
  }
  return Status::Ok();
}

Status CheckBodyLimits(const config::Settings& s) {
  if (s.max_body_memory_mb > 0 && s.max_body_bytes > (s.max_body_memory_mb << 20)) {
    return InvalidArgument("server.max_body_bytes (" + std::to_string(s.max_body_bytes) +
                           ") is larger than server.max_body_memory_mb (" +
                           std::to_string(s.max_body_memory_mb) +
                           " MiB), which holds every body at once: no such body could be read");
  }
  return Status::Ok();
}

}  // namespace zest::app
