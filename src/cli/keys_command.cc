// `zest keys add|list|rm`: manages $ZEST_HOME/keys.json directly (no server
// needed); a running server picks changes up within a second.
#include <cstdio>

#include "cli/commands.h"
#include "cli/table.h"
#include "config/settings.h"
#include "http/api_keys.h"

namespace zest::cli {
namespace {

Result<config::Settings> LoadedSettings() {
  config::LoadInputs inputs{config::ProcessEnv, {}, std::nullopt};
  ZEST_ASSIGN_OR_RETURN(config::LoadedSettings loaded, config::LoadSettings(inputs));
  return loaded.settings;
}

Result<std::filesystem::path> KeysFile() {
  ZEST_ASSIGN_OR_RETURN(config::Settings settings, LoadedSettings());
  return settings.KeysFile();
}

int Fail(const Status& status) {
  std::fprintf(stderr, "zest: %s\n", status.message().c_str());
  return 1;
}

int AddKey(const http::NewKeyOptions& options) {
  auto file = KeysFile();
  if (!file.ok()) return Fail(file.status());
  auto key = http::AddApiKey(*file, options);
  if (!key.ok()) return Fail(key.status());
  std::printf("%s\n", key->c_str());
  std::fprintf(
      stderr,
      "Created key '%s' (scope %s, priority %s, %s). This is the only time it is "
      "shown: store it now.\nUse it as 'Authorization: Bearer <key>' (or "
      "ZEST_API_KEY=<key> for the zest CLI).\n",
      options.name.c_str(), options.scope.c_str(), options.priority.c_str(),
      options.rpm > 0 ? (std::to_string(options.rpm) + " requests/min").c_str() : "no rate limit");
  return 0;
}

int ListKeys() {
  auto file = KeysFile();
  if (!file.ok()) return Fail(file.status());
  auto keys = http::LoadApiKeys(*file);
  if (!keys.ok()) return Fail(keys.status());
  std::vector<std::vector<std::string>> rows;
  for (const http::ApiKeyRecord& k : *keys) {
    rows.push_back({k.name, http::AccessName(k.scope), k.priority,
                    k.rpm > 0 ? std::to_string(k.rpm) : "-", k.created});
  }
  PrintTable({"NAME", "SCOPE", "PRIORITY", "RPM", "CREATED"}, rows);
  return 0;
}

// A server that had keys keeps needing one (it fails closed): removing the
// last key locks every client out until a new one is added, so it must be
// asked for with --force.
int RemoveKey(const std::string& name, bool force) {
  auto settings = LoadedSettings();
  if (!settings.ok()) return Fail(settings.status());
  const std::filesystem::path file = settings->KeysFile();
  auto keys = http::LoadApiKeys(file);
  if (!keys.ok()) return Fail(keys.status());
  const bool last = keys->size() == 1 && keys->front().name == name && settings->api_key.empty();
  if (last && !force) {
    std::fprintf(stderr,
                 "zest: '%s' is the last API key. A server that runs with keys keeps needing "
                 "one: without any, it refuses every request but /health (401) until a key is "
                 "added with `zest keys add NAME --scope admin`. Pass --force to remove it.\n",
                 name.c_str());
    return 1;
  }
  if (Status st = http::RemoveApiKey(file, name); !st.ok()) return Fail(st);
  std::printf("removed key '%s'\n", name.c_str());
  if (last) {
    std::fprintf(stderr, "No API key is left: a running server now refuses every request.\n");
  }
  return 0;
}

}  // namespace

void AddKeysCommand(CLI::App& app, Action* action) {
  auto* keys = app.add_subcommand("keys", "Manage API keys ($ZEST_HOME/keys.json)");
  keys->require_subcommand(1);

  auto options = std::make_shared<http::NewKeyOptions>();
  auto* add = keys->add_subcommand("add", "Create a key and print it (once)");
  add->add_option("name", options->name, "Name of the key")->required();
  add->add_option("--scope", options->scope, "inference (default) or admin")
      ->check(CLI::IsMember({"inference", "admin"}));
  add->add_option("--priority", options->priority, "Default queue priority: low, normal, high")
      ->check(CLI::IsMember({"low", "normal", "high"}));
  add->add_option("--rpm", options->rpm, "Requests per minute (0 = unlimited)")
      ->check(CLI::NonNegativeNumber);
  add->callback([action, options] { *action = [options] { return AddKey(*options); }; });

  auto* list = keys->add_subcommand("list", "List keys (names and settings; never the keys)");
  list->callback([action] { *action = [] { return ListKeys(); }; });

  auto name = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto* rm = keys->add_subcommand("rm", "Delete a key");
  rm->add_option("name", *name, "Name of the key")->required();
  rm->add_flag("--force", *force,
               "Remove the last key too (a server with keys then refuses everything)");
  rm->callback(
      [action, name, force] { *action = [name, force] { return RemoveKey(*name, *force); }; });
}

}  // namespace zest::cli
