// Fuzzes the bodies of zest's own (admin) routes: the gateway's nesting
// check, then every admin parser (api/admin/request_body) and, for a load,
// the per-model options it carries (model_options_json, config's
// SetModelOption), as POST /api/v1/load, /pull, /unload, /add, /delete
// and /show read them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/admin/model_options_json.h"
#include "api/admin/request_body.h"
#include "http/json_depth.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zest::api::admin;
  std::string body(reinterpret_cast<const char*>(data), size);
  if (zest::http::JsonDeeperThan(body, 16)) return 0;  // the gateway refuses it first
  for (const char* field : {"model", "name", "path"}) (void)StringField(body, field);
  std::string param;
  if (auto load = ParseLoadRequest(body, &param); load.ok()) {
    if (load->model.empty()) __builtin_trap();  // the contract says non-empty
    if (load->options) {
      zest::config::ModelSettings settings;
      (void)ApplyModelOptions(*load->options, settings, &param);
      (void)ModelOptionsJson(settings).dump();
    }
  }
  if (auto pull = ParsePullRequest(body, &param); pull.ok() && pull->model.empty())
    __builtin_trap();
  return 0;
}
