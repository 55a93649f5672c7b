// `zest sync`: makes the running server hold its cluster manifest's models
// now (POST /api/v1/cluster/sync: pulls what is missing, checks the files'
// hashes) and prints each model's state; exits 1 when any is not present.
#include <cstdio>

#include "cli/api_client.h"
#include "cli/commands.h"
#include "cli/json_fields.h"
#include "cli/table.h"

namespace zest::cli {
namespace {

using nlohmann::json;

int Sync() {
  auto r = ClientFromEnv().Post("/api/v1/cluster/sync", json::object());
  if (!r.ok()) return PrintError(r.status());
  if (r->value("manifest", json()).is_null()) {
    std::printf("this server has no cluster manifest (cluster.manifest)\n");
    return 0;
  }
  if (r->contains("error")) {
    std::fprintf(stderr, "zest sync: %s\n", TextField(*r, "error").c_str());
    return 1;
  }
  std::vector<std::vector<std::string>> rows;
  bool all_present = true;
  for (const json& m : r->value("models", json::array())) {
    std::string name = m.contains("pull") ? TextField(m, "pull") : TextField(m, "file");
    rows.push_back({name, TextField(m, "status"), TextField(m, "detail")});
    all_present = all_present && TextField(m, "status") == "present";
  }
  PrintTable({"MODEL", "STATUS", "DETAIL"}, rows);
  return all_present ? 0 : 1;
}

}  // namespace

void AddSyncCommand(CLI::App& app, Action* action) {
  auto* cmd = app.add_subcommand(
      "sync", "Pull and check the cluster manifest's models on the server now (docs/scale-out.md)");
  cmd->callback([action] { *action = [] { return Sync(); }; });
}

}  // namespace zest::cli
