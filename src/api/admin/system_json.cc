#include "api/admin/system_json.h"

#include <fmt/format.h>

namespace zest::api::admin {
namespace {

using nlohmann::json;

std::string Hex(uint32_t value, int width) { return fmt::format("0x{:0{}x}", value, width); }

json OptionalInt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

json PciJson(const hardware::PciDevice& d) {
  return {{"address", d.address},
          {"class", Hex(d.class_code, 6)},
          {"vendor_id", Hex(d.vendor_id, 4)},
          {"device_id", Hex(d.device_id, 4)},
          {"subsystem_vendor_id", Hex(d.subsystem_vendor_id, 4)},
          {"subsystem_device_id", Hex(d.subsystem_device_id, 4)},
          {"revision", Hex(d.revision, 2)},
          {"driver", d.driver}};
}

json CpuJson(const hardware::CpuInfo& c) {
  return {{"vendor", c.vendor},
          {"model", c.model_name},
          {"architecture", c.architecture},
          {"sockets", c.sockets},
          {"cores", c.physical_cores},
          {"threads", c.threads},
          {"features", c.features},
          {"features_source", c.features_source}};
}

json GpuJson(const hardware::GpuInfo& g) {
  return {{"vendor", hardware::GpuVendorName(g.vendor)},
          {"name", g.name},
          {"pci", PciJson(g.pci)},
          {"card", g.card},
          {"integrated", g.integrated},
          {"unified_memory", g.unified_memory},
          {"vram_total_bytes", g.vram_total_bytes},
          {"vram_used_bytes", g.vram_used_bytes},
          {"gtt_total_bytes", g.gtt_total_bytes},
          {"gtt_used_bytes", g.gtt_used_bytes},
          {"busy_percent", OptionalInt(g.busy_percent)},
          {"gfx_target", g.gfx_target},
          {"compute_capability", g.compute_capability},
          {"driver_version", g.driver_version},
          {"source", g.source}};
}

json NpuJson(const hardware::NpuInfo& n) {
  return {{"name", n.name},
          {"generation", hardware::NpuGenerationName(n.generation)},
          {"pci", PciJson(n.pci)},
          {"accel", n.accel},
          {"firmware_version", n.firmware_version},
          {"driver_version", n.driver_version},
          {"usable", n.usable},
          {"reason", n.reason}};
}

json VulkanJson(const hardware::VulkanDevice& v) {
  return {{"name", v.name},
          {"type", v.type},
          {"api_version", v.api_version},
          {"vendor_id", Hex(v.vendor_id, 4)},
          {"device_id", Hex(v.device_id, 4)},
          {"device_local_bytes", v.device_local_bytes}};
}

json UtilisationJson(const hardware::Utilisation& u) {
  json gpus = json::array();
  for (const auto& g : u.gpus) {
    gpus.push_back({{"pci_address", g.pci_address},
                    {"busy_percent", OptionalInt(g.busy_percent)},
                    {"vram_used_bytes", g.vram_used_bytes},
                    {"gtt_used_bytes", g.gtt_used_bytes}});
  }
  json npus = json::array();
  for (const auto& n : u.npus)
    npus.push_back({{"pci_address", n.pci_address}, {"power_state", n.power_state}});
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(u.taken.time_since_epoch()).count();
  return {{"samples", u.samples},
          {"taken_unix_ms", u.samples ? json(ms) : json(nullptr)},
          {"cpu_percent", u.cpu_percent ? json(*u.cpu_percent) : json(nullptr)},
          {"ram_total_bytes", u.ram_total_bytes},
          {"ram_used_bytes", u.ram_used_bytes},
          {"gpus", gpus},
          {"npus", npus}};
}

template <typename T, typename F>
json ArrayOf(const std::vector<T>& items, F&& to_json) {
  json out = json::array();
  for (const auto& item : items) out.push_back(to_json(item));
  return out;
}

}  // namespace

json EngineJson(const engines::EngineDescription& d) {
  json devices = json::array();
  for (const auto& device : d.devices) {
    devices.push_back({{"name", device.name}, {"description", device.description}});
  }
  json e = {{"name", d.name},     {"found", d.available.ok()}, {"probed", d.probed},
            {"serves", d.serves}, {"notes", d.notes},          {"devices", devices}};
  if (!d.available.ok()) {
    e["error"] = d.available.message();
    return e;
  }
  e["source"] = d.source;
  e["binary"] = d.binary;
  e["rootfs"] = d.rootfs;
  e["sandboxed"] = d.sandboxed;
  if (!d.sandbox.empty()) e["sandbox"] = d.sandbox;
  if (!d.version.empty()) e["version"] = d.version;
  if (!d.probe_error.empty()) e["error"] = d.probe_error;
  return e;
}

void StripHostPaths(json& engines) {
  for (json& e : engines) {
    for (const char* key : {"binary", "rootfs", "sandbox"}) e.erase(key);
    if (e.contains("error")) e["error"] = "unavailable (the detail is for admin keys)";
  }
}

engines::EngineDescription DescribeEngine(const engines::EngineAdapter& engine,
                                          const Result<engines::EngineInfo>* probed) {
  return engine.Describe(engine.probes_devices() ? probed : nullptr);
}

json SystemInfoJson(const hardware::Inventory& inv, const engines::EngineSet& engine_set,
                    const Result<engines::EngineInfo>* probed,
                    const hardware::Utilisation& utilisation, const char* discovery) {
  json recipes = json::array();
  for (const auto& v : engines::RecipeVerdicts(inv, engines::FactsOf(engine_set, probed))) {
    recipes.push_back({{"recipe", v.recipe},
                       {"backend", v.backend},
                       {"verdict", engines::VerdictName(v.verdict)},
                       {"reason", v.reason}});
  }
  json memory = {{"total_bytes", inv.memory.total_bytes},
                 {"available_bytes", inv.memory.available_bytes},
                 {"swap_total_bytes", inv.memory.swap_total_bytes},
                 {"swap_free_bytes", inv.memory.swap_free_bytes}};
  json engines = json::array();
  for (const engines::EngineAdapter* e : engine_set.All()) {
    engines.push_back(EngineJson(DescribeEngine(*e, probed)));
  }
  return {{"discovery", discovery},
          {"kernel_release", inv.kernel_release},
          {"cpu", CpuJson(inv.cpu)},
          {"memory", memory},
          {"gpus", ArrayOf(inv.gpus, GpuJson)},
          {"npus", ArrayOf(inv.npus, NpuJson)},
          {"vulkan", ArrayOf(inv.vulkan, VulkanJson)},
          {"engines", engines},
          {"recipes", recipes},
          {"utilisation", UtilisationJson(utilisation)},
          // The server's RPC workers (SystemApi fills them in); none here.
          {"rpc_workers", json::array()},
          {"notes", inv.notes}};
}

}  // namespace zest::api::admin
