// `zest load MODEL [--keep-alive D]` and `zest unload MODEL`: load a model
// before its first request (and keep it as long as asked), or unload it now.
#include <cstdio>
#include <cstdlib>

#include "cli/api_client.h"
#include "cli/commands.h"

namespace zest::cli {
namespace {

using nlohmann::json;

int Load(const std::string& model, const std::string& keep_alive) {
  json body = {{"model", model}};
  if (!keep_alive.empty()) body["keep_alive"] = keep_alive;
  auto r = ClientFromEnv().Post("/api/v1/load", body);
  if (!r.ok()) return PrintError(r.status());
  std::printf("loaded %s in %.1f s (pid %d, keep-alive %s)\n", model.c_str(),
              r->value("load_ms", 0) / 1000.0, r->value("pid", 0),
              r->value("keep_alive", std::string("?")).c_str());
  return 0;
}

int Unload(const std::string& model) {
  auto r = ClientFromEnv().Post("/api/v1/unload", {{"model", model}});
  if (!r.ok()) return PrintError(r.status());
  std::printf("unloaded %s\n", model.c_str());
  return 0;
}

}  // namespace

void AddLoadCommands(CLI::App& app, Action* action) {
  auto model = std::make_shared<std::string>();
  auto keep_alive = std::make_shared<std::string>();
  auto* load = app.add_subcommand("load", "Load a model now and keep it loaded");
  load->add_option("MODEL", *model, "Model name")->required();
  load->add_option(
      "--keep-alive", *keep_alive,
      "How long it stays loaded when idle: 10m, 1h, -1 (forever); default: the server's");
  load->callback([action, model, keep_alive] {
    *action = [model, keep_alive] { return Load(*model, *keep_alive); };
  });
  auto* unload = app.add_subcommand("unload", "Unload a model now (same as `zest stop`)");
  auto unload_model = std::make_shared<std::string>();
  unload->add_option("MODEL", *unload_model, "Model name")->required();
  unload->callback(
      [action, unload_model] { *action = [unload_model] { return Unload(*unload_model); }; });
}

}  // namespace zest::cli
