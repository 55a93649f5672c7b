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

json EngineJson(const Result<engines::EngineLocation>& located,
                const Result<engines::EngineInfo>* probed) {
  json e = {{"name", "llama-server"},
            {"found", located.ok()},
            {"probed", probed != nullptr},
            {"devices", json::array()}};
  if (!located.ok()) {
    e["error"] = located.status().message();
    return e;
  }
  e["source"] = engines::EngineSourceName(located->source);
  e["binary"] = located->binary.string();
  e["rootfs"] = located->rootfs.string();
  e["sandboxed"] = located->sandboxed();
  e["sandbox"] = located->SandboxNote();
  if (probed != nullptr && !probed->ok()) e["error"] = probed->status().message();
  if (probed != nullptr && probed->ok()) {
    e["version"] = (*probed)->version;
    for (const auto& d : (*probed)->devices) {
      e["devices"].push_back({{"name", d.name}, {"description", d.description}});
    }
  }
  return e;
}

// FastFlowLM: found or not; zest does not probe it (its NPU check, `flm
// validate`, takes seconds and the NPU may be busy).
json FlmJson(const Result<std::filesystem::path>& flm) {
  json e = {{"name", "flm"}, {"found", flm.ok()}, {"probed", false}, {"devices", json::array()}};
  if (flm.ok()) {
    e["binary"] = flm->string();
  } else {
    e["error"] = flm.status().message();
  }
  return e;
}

// An engine zest describes but does not probe (engines/engine_adapter.h).
json DescriptionJson(const engines::EngineDescription& d) {
  json e = {{"name", d.name},     {"found", d.available.ok()}, {"probed", false},
            {"serves", d.serves}, {"notes", d.notes},          {"devices", json::array()}};
  if (!d.available.ok()) {
    e["error"] = d.available.message();
    return e;
  }
  e["source"] = d.source;
  e["binary"] = d.binary;
  e["rootfs"] = d.rootfs;
  if (!d.sandbox.empty()) e["sandbox"] = d.sandbox;
  return e;
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

hardware::EngineReport MakeEngineReport(const Result<engines::EngineLocation>& located,
                                        const Result<engines::EngineInfo>* probed,
                                        const Result<std::filesystem::path>& flm) {
  hardware::EngineReport report;
  if (flm.ok()) report.flm_path = flm->string();
  report.llama_server_found = located.ok();
  if (!located.ok()) {
    report.error = located.status().message();
    return report;
  }
  report.llama_server_source = engines::EngineSourceName(located->source);
  if (probed != nullptr && probed->ok()) {
    report.probed = true;
    for (const auto& d : (*probed)->devices) report.devices.push_back({d.name, d.description});
  } else if (probed != nullptr) {
    report.error = probed->status().message();
  }
  return report;
}

json SystemInfoJson(const hardware::Inventory& inv, const Result<engines::EngineLocation>& located,
                    const Result<engines::EngineInfo>* probed,
                    const Result<std::filesystem::path>& flm,
                    const hardware::Utilisation& utilisation, const char* discovery,
                    const std::vector<engines::EngineDescription>& more) {
  json recipes = json::array();
  for (const auto& v : hardware::RecipeVerdicts(inv, MakeEngineReport(located, probed, flm))) {
    recipes.push_back({{"recipe", v.recipe},
                       {"backend", v.backend},
                       {"verdict", hardware::VerdictName(v.verdict)},
                       {"reason", v.reason}});
  }
  json memory = {{"total_bytes", inv.memory.total_bytes},
                 {"available_bytes", inv.memory.available_bytes},
                 {"swap_total_bytes", inv.memory.swap_total_bytes},
                 {"swap_free_bytes", inv.memory.swap_free_bytes}};
  json engines = json::array({EngineJson(located, probed), FlmJson(flm)});
  for (const auto& d : more) engines.push_back(DescriptionJson(d));
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
          {"notes", inv.notes}};
}

}  // namespace zest::api::admin
