// `zest load MODEL [--keep-alive D] [engine options]` and `zest unload
// MODEL`: load a model before its first request (and keep it as long as
// asked, with the options given for this load), or unload it now.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "cli/api_client.h"
#include "cli/commands.h"

namespace zest::cli {
namespace {

using nlohmann::json;

// The per-model options `zest load` takes, named as in `[models."name"]`
// and the "options" of POST /api/v1/load; unset ones are not sent.
struct LoadFlags {
  std::string model;
  std::string keep_alive;
  std::optional<int64_t> ctx_size, n_gpu_layers, parallel, batch, ubatch, n_cpu_moe, cache_ram;
  std::string device, kv_type, cache_type_k, cache_type_v, flash_attention, flm;
  std::vector<double> tensor_split;
  bool no_mmap = false, mlock = false;

  json Options() const {
    json o = json::object();
    auto number = [&o](const char* key, const std::optional<int64_t>& v) {
      if (v) o[key] = *v;
    };
    number("ctx_size", ctx_size);
    number("n_gpu_layers", n_gpu_layers);
    number("parallel", parallel);
    number("batch", batch);
    number("ubatch", ubatch);
    number("n_cpu_moe", n_cpu_moe);
    number("cache_ram", cache_ram);
    if (!device.empty()) o["device"] = device;
    if (!flm.empty()) o["flm"] = flm;
    if (!kv_type.empty()) o["kv_type"] = kv_type;
    if (!cache_type_k.empty()) o["cache_type_k"] = cache_type_k;
    if (!cache_type_v.empty()) o["cache_type_v"] = cache_type_v;
    if (!tensor_split.empty()) o["tensor_split"] = tensor_split;
    if (!flash_attention.empty()) o["flash_attention"] = flash_attention == "on";
    if (no_mmap) o["no_mmap"] = true;
    if (mlock) o["mlock"] = true;
    return o;
  }
};

int Load(const LoadFlags& flags) {
  json body = {{"model", flags.model}};
  if (!flags.keep_alive.empty()) body["keep_alive"] = flags.keep_alive;
  if (json options = flags.Options(); !options.empty()) body["options"] = options;
  auto r = ClientFromEnv().Post("/api/v1/load", body);
  if (!r.ok()) return PrintError(r.status());
  std::printf("loaded %s in %.1f s (pid %d, keep-alive %s)\n", flags.model.c_str(),
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

void AddEngineOptions(CLI::App* load, LoadFlags& f) {
  load->add_option("--ctx-size", f.ctx_size, "Context per request (slot), in tokens");
  load->add_option("--gpu-layers,--n-gpu-layers", f.n_gpu_layers,
                   "Layers on the GPU (-ngl); layers + 1 = everything");
  load->add_option("--device", f.device,
                   "cpu, npu, or an engine device such as Vulkan0 (`zest engines`)");
  load->add_option("--flm", f.flm, "The model's FastFlowLM tag (its NPU build), e.g. llama3.2:1b");
  load->add_option("--parallel", f.parallel, "The engine's parallel sequences (slots)");
  load->add_option("--kv-type", f.kv_type, "KV cache type: f16, q8_0 or q4_0");
  load->add_option("--cache-type-k", f.cache_type_k, "K cache type alone (over --kv-type)");
  load->add_option("--cache-type-v", f.cache_type_v, "V cache type alone (over --kv-type)");
  load->add_option("--tensor-split", f.tensor_split,
                   "Share of the layers per GPU, in device order (e.g. 3,1)")
      ->delimiter(',');
  load->add_option("--flash-attention", f.flash_attention, "on or off (default: the engine's auto)")
      ->check(CLI::IsMember({"on", "off"}));
  load->add_option("--batch", f.batch, "Logical batch size (-b)");
  load->add_option("--ubatch", f.ubatch, "Physical batch size (-ub)");
  load->add_option("--n-cpu-moe", f.n_cpu_moe, "MoE: experts of the first N blocks on the CPU");
  load->add_option("--cache-ram", f.cache_ram,
                   "MiB of idle conversations the engine keeps in RAM (0 = none; default: "
                   "as large as its KV cache, within a quarter of the free RAM)");
  load->add_flag("--no-mmap", f.no_mmap, "Read the weights into memory instead of mapping them");
  load->add_flag("--mlock", f.mlock, "Lock the weights in RAM");
}

}  // namespace

void AddLoadCommands(CLI::App& app, Action* action) {
  auto flags = std::make_shared<LoadFlags>();
  auto* load = app.add_subcommand(
      "load",
      "Load a model now and keep it loaded; engine options apply to this load "
      "(over the model's config.toml table; an idle engine with other options is restarted)");
  load->add_option("MODEL", flags->model, "Model name")->required();
  load->add_option(
      "--keep-alive", flags->keep_alive,
      "How long it stays loaded when idle: 10m, 1h, -1 (forever); default: the server's");
  AddEngineOptions(load, *flags);
  load->callback([action, flags] { *action = [flags] { return Load(*flags); }; });
  auto* unload = app.add_subcommand("unload", "Unload a model now (same as `zest stop`)");
  auto unload_model = std::make_shared<std::string>();
  unload->add_option("MODEL", *unload_model, "Model name")->required();
  unload->callback(
      [action, unload_model] { *action = [unload_model] { return Unload(*unload_model); }; });
}

}  // namespace zest::cli
