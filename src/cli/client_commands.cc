#include <array>
#include <cstdio>
#include <cstdlib>

#include "cli/api_client.h"
#include "cli/commands.h"
#include "cli/json_fields.h"
#include "cli/table.h"
#include "config/settings.h"

namespace zest::cli {
namespace {

using nlohmann::json;

ApiClient Client() { return ClientFromEnv(); }
int Fail(const Status& status) { return PrintError(status); }

int PrintJson(const json& j) {
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
}

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "-";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// What a chat model does beyond text ("vision,tools,thinking"); "-" when
// nothing; "embedding" for embedding models; the type of a model without
// chat ("speech", "tts", "image").
std::string Extras(const json& m) {
  std::string type = m.value("type", std::string());
  if (type == "speech" || type == "tts" || type == "image") return type;
  std::string out;
  for (const json& c : m.value("capabilities", json::array())) {
    if (!c.is_string() || c == "completion") continue;
    out += (out.empty() ? "" : ",") + c.get<std::string>();
  }
  return out.empty() ? "-" : out;
}

std::string Labels(const json& m) {
  std::string out;
  for (const json& l : m.value("labels", json::array())) {
    out += (out.empty() ? "" : ",") + l.get<std::string>();
  }
  return out.empty() ? "-" : out;
}

// Whether this machine can run it: yes, partial, cpu, npu, or "no (needs 70 GiB,
// 23 GiB free)"; "-" while the server has not discovered its devices yet.
std::string Fit(const json& m) {
  auto fit = m.find("fit");
  if (fit == m.end() || !fit->is_object()) return "-";
  std::string verdict = fit->value("verdict", std::string("-"));
  if (verdict != "no") return verdict;
  return "no (needs " + HumanBytes(UintField(*fit, "needed_bytes")) + ", " +
         HumanBytes(UintField(*fit, "available_bytes")) + " free)";
}

// `zest list --all`: servable models and the catalog, with DOWNLOADED.
int ListAll(bool as_json) {
  auto models = Client().Get("/api/v1/models?all=true");
  if (!models.ok()) return Fail(models.status());
  if (as_json) return PrintJson((*models)["data"]);
  std::vector<std::vector<std::string>> rows;
  for (const json& m : (*models)["data"]) {
    rows.push_back({Str(m, "id"), Str(m, "quantization"), HumanBytes(UintField(m, "size")),
                    Labels(m), Str(m, "source"), m.value("downloaded", false) ? "yes" : "no",
                    m.value("loaded", false) ? "yes" : "no", Fit(m)});
  }
  PrintTable({"NAME", "QUANT", "SIZE", "LABELS", "SOURCE", "DOWNLOADED", "LOADED", "FIT"}, rows);
  return 0;
}

int List(bool all, bool as_json) {
  if (all) return ListAll(as_json);
  auto models = Client().Get("/v1/models");
  if (!models.ok()) return Fail(models.status());
  if (as_json) return PrintJson((*models)["data"]);
  std::vector<std::vector<std::string>> rows;
  for (const json& m : (*models)["data"]) {
    rows.push_back({Str(m, "id"), Str(m, "architecture"), HumanCount(UintField(m, "parameters")),
                    Str(m, "quantization"), HumanBytes(UintField(m, "size")),
                    Str(m, "context_length"), Extras(m), Str(m, "source"),
                    m.value("loaded", false) ? "yes" : "no", Fit(m), Str(m, "path")});
  }
  if (rows.empty()) {
    std::printf("no models; put .gguf files in the models directory or use `zest add`\n");
    return 0;
  }
  // SOURCE: where the model came from (models_dir, hf_store, catalog, user,
  // preset, or another tool's store read in place: ollama, lmstudio).
  PrintTable({"NAME", "ARCH", "PARAMS", "QUANT", "SIZE", "CONTEXT", "CAPABILITIES", "SOURCE",
              "LOADED", "FIT", "PATH"},
             rows);
  // [aliases] from config.toml: other names (or patterns) clients may use.
  std::vector<std::vector<std::string>> aliases;
  for (const json& m : (*models)["data"]) {
    for (const json& alias : m.value("aliases", json::array())) {
      aliases.push_back({alias.get<std::string>(), Str(m, "id")});
    }
  }
  if (!aliases.empty()) {
    std::printf("\n");
    PrintTable({"ALIAS", "MODEL"}, aliases);
  }
  return 0;
}

// The session tier's line of `zest ps -v` for `model`, when it is on.
void PrintSessionCache(const json& session_cache, const std::string& model) {
  auto it = session_cache.find(model);
  if (it == session_cache.end() || !it->is_object()) return;
  const json& c = *it;
  std::printf(
      "  session cache: %d session(s) remembered, %d restored, %d saved, %s on disk (%d "
      "file(s))\n",
      c.value("sessions", 0), c.value("restores", 0), c.value("saves", 0),
      HumanBytes(c.value("disk_bytes", uint64_t{0})).c_str(), c.value("files", 0));
}

int Ps(bool verbose) {
  auto ps = Client().Get("/api/v1/ps");
  if (!ps.ok()) return Fail(ps.status());
  std::vector<std::vector<std::string>> rows;
  for (const json& i : (*ps)["instances"]) {
    const json& p = i.value("placement", json::object());
    std::string devices;
    for (const json& d : p.value("devices", json::array())) {
      devices += (devices.empty() ? "" : "+") + d.get<std::string>();
    }
    // A model with replicas has a row per instance, each on its own device.
    std::string slots = Str(i, "in_flight") + "/" + Str(i, "slots");
    rows.push_back({Str(i, "model"), Str(i, "pid"), Str(i, "state"),
                    HumanDuration(i.value("uptime_s", 0.0)), slots, devices, Str(p, "ctx_size"),
                    HumanBytes(p.value("predicted_total_bytes", uint64_t{0})),
                    HumanBytes(i.value("measured_rss_bytes", uint64_t{0}))});
  }
  PrintTable({"MODEL", "PID", "STATE", "UPTIME", "BUSY", "DEVICE", "CONTEXT", "PREDICTED", "RSS"},
             rows);
  if (!verbose) return 0;
  for (const json& i : (*ps)["instances"]) {
    const json& p = i.value("placement", json::object());
    std::printf("\n%s (socket %s)\n  %s\n", Str(i, "model").c_str(), Str(i, "socket").c_str(),
                Str(p, "explanation").c_str());
    // The options it was loaded with (config.toml, `zest load` flags).
    std::string options;
    auto set = i.find("options");
    if (set != i.end() && set->is_object()) {
      for (auto it = set->begin(); it != set->end(); ++it) {
        options += (options.empty() ? "" : " ") + it.key() + "=" +
                   (it->is_string() ? it->get<std::string>() : it->dump());
      }
    }
    std::printf("  options: %s\n", options.empty() ? "(none: zest decides)" : options.c_str());
    // What earlier loads measured against the prediction (PREDICTED includes it).
    const json& c = i.value("memory_correction", json());
    if (c.is_object()) {
      std::printf(
          "  memory correction (%s): measured/predicted %.2f over %d load(s), CPU "
          "prediction x%.2f\n",
          c.value("scope", std::string("?")).c_str(), c.value("ratio", 1.0), c.value("loads", 0),
          c.value("applied_factor", 1.0));
    } else {
      std::printf("  memory correction: none learned yet\n");
    }
    PrintSessionCache((*ps).value("session_cache", json::object()), Str(i, "model"));
  }
  return 0;
}

int Stop(const std::string& model) {
  auto r = Client().Post("/api/v1/unload", {{"model", model}});
  if (!r.ok()) return Fail(r.status());
  std::printf("stopped %s\n", model.c_str());
  return 0;
}

int Add(const std::string& name, const std::string& path, const std::string& mmproj) {
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(path, ec).string();
  json body = {{"name", name}, {"path", absolute}};
  if (!mmproj.empty()) body["mmproj"] = std::filesystem::absolute(mmproj, ec).string();
  auto r = Client().Post("/api/v1/add", body);
  if (!r.ok()) return Fail(r.status());
  std::printf("added %s → %s%s\n", name.c_str(), absolute.c_str(),
              mmproj.empty() ? "" : (" with projector " + Str(*r, "mmproj")).c_str());
  return 0;
}

int Remove(const std::string& model) {
  auto r = Client().Post("/api/v1/delete", {{"model", model}});
  if (!r.ok()) return Fail(r.status());
  std::printf("deleted %s (%s)\n", Str(*r, "model").c_str(), Str(*r, "source").c_str());
  return 0;
}

// A metadata value on one line; long strings (chat templates) are cut.
std::string ShortValue(const json& v) {
  if (v.is_object() && v.contains("array_length")) {
    return "[" + v["array_length"].dump() + " values]";
  }
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  for (char& c : text) c = c == '\n' ? ' ' : c;
  return text.size() > 100 ? text.substr(0, 97) + "..." : text;
}

int Show(const std::string& model) {
  auto r = Client().Post("/api/v1/show", {{"model", model}});
  if (!r.ok()) return Fail(r.status());
  const json& d = (*r)["details"];
  std::vector<std::vector<std::string>> rows;
  for (const char* key : {"id", "source", "path", "repo", "mmproj", "vocoder", "architecture",
                          "quantization", "context_length", "type"}) {
    if (d.contains(key)) rows.push_back({key, Str(d, key)});
  }
  rows.push_back({"parameters", HumanCount(UintField(d, "parameters"))});
  rows.push_back({"size", HumanBytes(UintField(d, "size"))});
  rows.push_back({"format", Str(*r, "format")});
  rows.push_back({"tensors", Str(*r, "tensor_count")});
  if (d.contains("capabilities")) {
    std::string capabilities;
    for (const json& c : d["capabilities"]) {
      capabilities += (capabilities.empty() ? "" : ", ") + c.get<std::string>();
    }
    rows.push_back({"capabilities", capabilities});
  }
  if (d.contains("projector")) {  // what the vision projector reads
    const json& p = d["projector"];
    std::string what = Str(p, "name") + " (" + HumanBytes(UintField(p, "size")) + ")";
    if (p.value("vision", false)) {
      what += ", images: " + Str(p, "type") + ", " + Str(p, "image_size") + " px in " +
              Str(p, "patch_size") + " px patches";
    }
    if (p.value("audio", false)) what += ", audio: " + Str(p, "audio_type");
    rows.push_back({"projector", what});
  }
  PrintTable({"MODEL", Str(*r, "model")}, rows);
  std::printf("\nmetadata:\n");
  for (const auto& [key, value] : (*r)["metadata"].items()) {
    std::printf("  %s = %s\n", key.c_str(), ShortValue(value).c_str());
  }
  return 0;
}

int Engines() {
  auto r = Client().Get("/api/v1/engines");
  if (!r.ok()) return Fail(r.status());
  if (r->contains("error")) return Fail(Unavailable(Str(*r, "error")));
  for (const json& e : (*r)["engines"]) {
    std::printf("%s  %s\n  source:  %s\n  binary:  %s\n", Str(e, "name").c_str(),
                Str(e, "version").c_str(), Str(e, "source").c_str(), Str(e, "binary").c_str());
    if (Str(e, "rootfs") != "" && Str(e, "rootfs") != "-") {
      std::printf("  rootfs:  %s\n", Str(e, "rootfs").c_str());
    }
    std::printf("  devices: %s\n", e["devices"].empty() ? "CPU only" : "");
    for (const json& d : e["devices"]) {
      std::printf("    %s: %s\n", Str(d, "name").c_str(), Str(d, "description").c_str());
    }
  }
  return 0;
}

void PrintOrigins(const json& rows) {
  std::vector<std::vector<std::string>> table;
  for (const json& o : rows) {
    std::string from = Str(o, "source");
    if (Str(o, "detail") != "" && Str(o, "detail") != "-") from += " (" + Str(o, "detail") + ")";
    table.push_back({Str(o, "key"), Str(o, "value"), from});
  }
  PrintTable({"SETTING", "VALUE", "FROM"}, table);
}

int Config() {
  auto r = Client().Get("/api/v1/config");
  if (r.ok()) {
    PrintOrigins((*r)["settings"]);
    return 0;
  }
  if (r.status().code() != ErrorCode::kUnavailable) return Fail(r.status());
  // No server: show what `zest serve` would resolve from here.
  auto loaded = config::LoadSettings({config::ProcessEnv, {}, std::nullopt});
  if (!loaded.ok()) return Fail(loaded.status());
  json rows = json::array();
  for (const auto& o : loaded->origins) {
    rows.push_back({{"key", o.key},
                    {"value", o.value},
                    {"source", config::SourceName(o.source)},
                    {"detail", o.detail}});
  }
  std::printf("(zest is not running at %s; showing what `zest serve` would use)\n",
              Client().base_url().c_str());
  PrintOrigins(rows);
  return 0;
}

}  // namespace

void AddClientCommands(CLI::App& app, Action* action) {
  auto* list = app.add_subcommand("list", "List models and whether they are loaded");
  auto list_all = std::make_shared<bool>(false);
  list->add_flag("-a,--all", *list_all, "Also list the catalog, with what is downloaded");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "Print the models as the API's JSON (with `fit`)");
  list->callback([action, list_all, list_json] {
    *action = [list_all, list_json] { return List(*list_all, *list_json); };
  });

  auto* rm = app.add_subcommand(
      "rm", "Delete a model (store files, a models-dir file, or a registration)");
  auto rm_model = std::make_shared<std::string>();
  rm->add_option("MODEL", *rm_model, "Model name")->required();
  rm->callback([action, rm_model] { *action = [rm_model] { return Remove(*rm_model); }; });

  auto* show = app.add_subcommand("show", "Print a model's GGUF metadata");
  auto show_model = std::make_shared<std::string>();
  show->add_option("MODEL", *show_model, "Model name")->required();
  show->callback([action, show_model] { *action = [show_model] { return Show(*show_model); }; });
  auto* ps = app.add_subcommand("ps", "List running engine instances");
  auto ps_verbose = std::make_shared<bool>(false);
  ps->add_flag("-v,--verbose", *ps_verbose, "Also explain where each model was placed and why");
  ps->callback([action, ps_verbose] { *action = [ps_verbose] { return Ps(*ps_verbose); }; });

  auto* stop = app.add_subcommand("stop", "Stop a model's engine instance");
  auto stop_model = std::make_shared<std::string>();
  stop->add_option("MODEL", *stop_model, "Model name")->required();
  stop->callback([action, stop_model] { *action = [stop_model] { return Stop(*stop_model); }; });

  auto* add = app.add_subcommand("add", "Register a GGUF file under a model name");
  auto add_args = std::make_shared<std::array<std::string, 3>>();
  add->add_option("NAME", (*add_args)[0], "Model name")->required();
  add->add_option("PATH", (*add_args)[1], "Path to the .gguf file")->required();
  add->add_option("--mmproj", (*add_args)[2], "Its vision projector (an mmproj .gguf file)");
  add->callback([action, add_args] {
    *action = [add_args] { return Add((*add_args)[0], (*add_args)[1], (*add_args)[2]); };
  });

  app.add_subcommand("engines", "List inference engines, their source, version and devices")
      ->callback([action] { *action = Engines; });
  app.add_subcommand("config", "Print the effective settings and where each came from")
      ->callback([action] { *action = Config; });
}

}  // namespace zest::cli
