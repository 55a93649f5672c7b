// `zest system`: the hardware inventory, engine devices, recipe verdicts and
// utilisation, from the running server's GET /api/v1/system-info, or (when no
// server answers) from a local discovery that skips the engine probe so it
// stays fast. --json prints the API's JSON; --watch refreshes every second.
#include <fmt/format.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "api/admin/system_json.h"
#include "app/engine_search.h"
#include "cli/api_client.h"
#include "cli/commands.h"
#include "cli/json_fields.h"
#include "cli/table.h"
#include "config/settings.h"
#include "engines/engine_discovery.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"

namespace zest::cli {
namespace {

using nlohmann::json;

struct SystemOptions {
  bool json = false;
  bool watch = false;
};

// No server: discover here. The engines are located but not probed
// (probing runs an engine twice, about a second), so their devices are
// unknown.
Result<json> LocalSystemInfo() {
  auto loaded = config::LoadSettings({config::ProcessEnv, {}, std::nullopt});
  if (!loaded.ok()) return loaded.status();
  const config::Settings& s = loaded->settings;
  engines::EngineSearch search = app::EngineSearchFor(s);
  search.log = false;
  std::shared_ptr<const engines::EngineSet> found = engines::DiscoverEngines(search);
  hardware::SystemRoots roots{s.sysfs_root, s.procfs_root, s.devfs_root};
  hardware::Inventory inventory = hardware::Discover(roots);
  hardware::UtilisationSampler sampler(roots, inventory);
  sampler.SampleNow();
  return api::admin::SystemInfoJson(inventory, *found, nullptr, sampler.Snapshot(), "local");
}

std::string Join(const json& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i.get<std::string>();
  return out;
}

void PrintCpuMemory(const json& info) {
  const json& cpu = info["cpu"];
  std::printf("CPU      %s (%s, %d cores, %d threads)\n         features: %s (%s)\n",
              TextField(cpu, "model").c_str(), TextField(cpu, "architecture").c_str(),
              cpu.value("cores", 0), cpu.value("threads", 0), Join(cpu["features"], " ").c_str(),
              TextField(cpu, "features_source").c_str());
  const json& mem = info["memory"];
  std::printf("Memory   %s total, %s available, swap %s\n",
              HumanBytes(UintField(mem, "total_bytes")).c_str(),
              HumanBytes(UintField(mem, "available_bytes")).c_str(),
              HumanBytes(UintField(mem, "swap_total_bytes")).c_str());
}

std::string GpuMemory(const json& g) {
  std::string out =
      "VRAM " +
      (UintField(g, "vram_total_bytes") ? HumanBytes(UintField(g, "vram_total_bytes")) : "unknown");
  if (UintField(g, "gtt_total_bytes"))
    out += ", GTT " + HumanBytes(UintField(g, "gtt_total_bytes"));
  return out;
}

void PrintDevices(const json& info) {
  int i = 0;
  for (const json& g : info["gpus"]) {
    std::string target = TextField(g, "gfx_target").empty() ? TextField(g, "compute_capability")
                                                            : TextField(g, "gfx_target");
    if (!TextField(g, "compute_capability").empty()) target = "compute " + target;
    std::printf("GPU %d    %s [%s %s, driver %s]\n         %s%s, %s%s\n", i++,
                TextField(g, "name").c_str(), TextField(g["pci"], "address").c_str(),
                TextField(g["pci"], "device_id").c_str(), TextField(g["pci"], "driver").c_str(),
                g.value("integrated", false) ? "integrated" : "discrete",
                g.value("unified_memory", false) ? " (unified memory)" : "", GpuMemory(g).c_str(),
                target.empty() ? "" : (", " + target).c_str());
  }
  i = 0;
  for (const json& n : info["npus"]) {
    std::printf(
        "NPU %d    %s [%s], firmware %s, driver %s: %s\n", i++, TextField(n, "name").c_str(),
        TextField(n["pci"], "address").c_str(),
        TextField(n, "firmware_version").empty() ? "?" : TextField(n, "firmware_version").c_str(),
        TextField(n, "driver_version").c_str(),
        n.value("usable", false) ? "usable" : TextField(n, "reason").c_str());
  }
  for (const json& v : info["vulkan"]) {
    std::printf("Vulkan   %s (%s, API %s, %s device-local)\n", TextField(v, "name").c_str(),
                TextField(v, "type").c_str(), TextField(v, "api_version").c_str(),
                HumanBytes(UintField(v, "device_local_bytes")).c_str());
  }
  if (info["vulkan"].empty()) std::printf("Vulkan   no devices on the host loader\n");
  // The head's RPC workers (the server only: [rpc] workers).
  for (const json& w : info.value("rpc_workers", json::array())) {
    const json reachable = w.value("reachable", json());
    if (reachable.is_null()) {
      std::printf("Worker   %s: not checked yet\n", TextField(w, "endpoint").c_str());
    } else if (reachable.get<bool>()) {
      std::printf("Worker   %s (%s): %s free of %s\n", TextField(w, "endpoint").c_str(),
                  TextField(w, "device").c_str(), HumanBytes(UintField(w, "free_bytes")).c_str(),
                  HumanBytes(UintField(w, "total_bytes")).c_str());
    } else {
      std::printf("Worker   %s\n", TextField(w, "description").c_str());
    }
  }
}

void PrintEngines(const json& info) {
  for (const json& e : info["engines"]) {
    if (!e.value("found", false)) {
      std::printf("Engine   %s: not found (%s)\n", TextField(e, "name").c_str(),
                  TextField(e, "error").c_str());
      continue;
    }
    std::printf("Engine   %s (%s) %s\n", TextField(e, "name").c_str(),
                TextField(e, "source").c_str(), TextField(e, "version").c_str());
    if (e.contains("sandbox")) {
      std::printf("         sandbox: %s\n", TextField(e, "sandbox").c_str());
    }
    if (e.contains("serves")) {  // described, not probed: what it is for
      std::string serves;
      for (const json& c : e["serves"])
        serves += (serves.empty() ? "" : ", ") + c.get<std::string>();
      std::printf("         serves: %s\n", serves.c_str());
      for (const json& note : e["notes"])
        std::printf("         %s\n", note.get<std::string>().c_str());
      continue;
    }
    if (!e.value("probed", false))
      std::printf("         devices not probed (zest is not running)\n");
    else if (e["devices"].empty())
      std::printf("         devices: CPU only\n");
    for (const json& d : e["devices"]) {
      std::printf("         %s: %s\n", TextField(d, "name").c_str(),
                  TextField(d, "description").c_str());
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const json& r : info["recipes"]) {
    rows.push_back({TextField(r, "recipe") + "-" + TextField(r, "backend"), TextField(r, "verdict"),
                    TextField(r, "reason")});
  }
  std::printf("\n");
  PrintTable({"RECIPE", "VERDICT", "WHY"}, rows);
}

void PrintUtilisation(const json& u) {
  std::string cpu =
      u["cpu_percent"].is_number() ? fmt::format("{:.0f}%", u["cpu_percent"].get<double>()) : "-";
  std::printf("Load     CPU %s, RAM %s of %s used", cpu.c_str(),
              HumanBytes(UintField(u, "ram_used_bytes")).c_str(),
              HumanBytes(UintField(u, "ram_total_bytes")).c_str());
  int i = 0;
  for (const json& g : u["gpus"]) {
    std::string busy =
        g["busy_percent"].is_number() ? fmt::format("{}%", g["busy_percent"].get<int>()) : "-";
    std::printf("; GPU %d %s busy, %s VRAM + %s GTT", i++, busy.c_str(),
                HumanBytes(UintField(g, "vram_used_bytes")).c_str(),
                HumanBytes(UintField(g, "gtt_used_bytes")).c_str());
  }
  for (const json& n : u["npus"]) std::printf("; NPU %s", TextField(n, "power_state").c_str());
  std::printf("\n");
}

void PrintSummary(const json& info) {
  PrintCpuMemory(info);
  PrintDevices(info);
  PrintUtilisation(info["utilisation"]);
  PrintEngines(info);
  for (const json& note : info["notes"]) std::printf("note: %s\n", note.get<std::string>().c_str());
}

volatile std::sig_atomic_t g_interrupted = 0;

// Waits up to a second for 'q' on a terminal; true when the user quits.
bool WaitOrQuit() {
  struct pollfd in {
    STDIN_FILENO, POLLIN, 0
  };
  if (::poll(&in, 1, 1000) <= 0) return g_interrupted != 0;
  char c = 0;
  return ::read(STDIN_FILENO, &c, 1) <= 0 || c == 'q' || c == 'Q' || g_interrupted != 0;
}

int Watch(const ApiClient& client) {
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  struct termios saved {};
  bool tty = ::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {  // keys without Enter, not echoed
    struct termios raw = saved;
    raw.c_lflag &= ~(ICANON | ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  }
  int rc = 0;
  do {
    auto info = client.Get("/api/v1/system-info");
    if (!info.ok()) {
      std::fprintf(stderr, "zest: %s\n", info.status().message().c_str());
      rc = 1;
      break;
    }
    std::printf("\x1b[H\x1b[2J(q or Ctrl-C to quit)\n");
    PrintSummary(*info);
    std::fflush(stdout);
  } while (!WaitOrQuit());
  if (tty) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
  return rc;
}

int System(const SystemOptions& options) {
  ApiClient client(ServerUrlFromEnv(config::ProcessEnv("ZEST_HOST").value_or("").c_str()));
  if (options.watch) return Watch(client);
  auto info = client.Get("/api/v1/system-info");
  bool local = !info.ok() && info.status().code() == ErrorCode::kUnavailable;
  if (local) info = LocalSystemInfo();
  if (!info.ok()) {
    std::fprintf(stderr, "zest: %s\n", info.status().message().c_str());
    return 1;
  }
  if (options.json) {
    std::printf("%s\n", info->dump(2).c_str());
    return 0;
  }
  if (local)
    std::printf("(zest is not running at %s; discovered locally)\n", client.base_url().c_str());
  PrintSummary(*info);
  return 0;
}

}  // namespace

void AddSystemCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<SystemOptions>();
  auto* cmd = app.add_subcommand(
      "system", "Show CPU, memory, GPUs, NPUs, engine devices and recipe verdicts");
  cmd->add_flag("--json", options->json, "Print the JSON of GET /api/v1/system-info");
  cmd->add_flag("--watch", options->watch,
                "Refresh utilisation every second from the server (q quits)");
  cmd->callback([action, options] { *action = [options] { return System(*options); }; });
}

}  // namespace zest::cli
