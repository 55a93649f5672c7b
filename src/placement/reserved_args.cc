#include "placement/reserved_args.h"

#include <map>

namespace zest::placement {
namespace {

// Flag → why it is reserved (the per-model option to use, or what zest owns).
const std::map<std::string, std::string>& Reserved() {
  static const std::map<std::string, std::string> kReserved = {
      {"--host", "zest chooses the engine's socket"},
      {"--port", "zest chooses the engine's socket"},
      {"--api-key", "zest does authentication"},
      {"--api-key-file", "zest does authentication"},
      {"--ssl-key-file", "zest terminates TLS"},
      {"--ssl-cert-file", "zest terminates TLS"},
      {"--slot-save-path", "engines may not write files"},
      {"--log-file", "zest captures engine logs"},
      {"--path", "engines serve no static files"},
      {"--alias", "zest names the model"},
      {"-a", "zest names the model"},
      {"--model", "zest chooses the model file"},
      {"-m", "zest chooses the model file"},
      {"--mmproj", "zest chooses the projector file"},
      {"--models-dir", "zest is the router"},
      {"--metrics", "zest enables it"},
      {"--ctx-size", "use ctx_size"},
      {"-c", "use ctx_size"},
      {"--parallel", "use parallel"},
      {"-np", "use parallel"},
      {"--n-gpu-layers", "use n_gpu_layers"},
      {"--gpu-layers", "use n_gpu_layers"},
      {"-ngl", "use n_gpu_layers"},
      {"--device", "use device"},
      {"-dev", "use device"},
      {"--tensor-split", "zest computes the split"},
      {"-ts", "zest computes the split"},
      {"--cache-type-k", "use kv_type"},
      {"-ctk", "use kv_type"},
      {"--cache-type-v", "use kv_type"},
      {"-ctv", "use kv_type"},
      {"--n-cpu-moe", "use n_cpu_moe"},
      {"-ncmoe", "use n_cpu_moe"},
      {"--cpu-moe", "use n_cpu_moe"},
      {"-cmoe", "use n_cpu_moe"},
      {"--flash-attn", "use flash_attention"},
      {"-fa", "use flash_attention"},
      {"--batch-size", "use batch"},
      {"-b", "use batch"},
      {"--ubatch-size", "use ubatch"},
      {"-ub", "use ubatch"},
      {"--load-mode", "use no_mmap and mlock"},
      {"-lm", "use no_mmap and mlock"},
      {"--fit", "zest places the model itself"},
      {"-fit", "zest places the model itself"},
  };
  return kReserved;
}

}  // namespace

Status ValidateExtraArgs(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    const std::string flag = arg.substr(0, arg.find('='));
    auto it = Reserved().find(flag);
    if (it != Reserved().end()) {
      return InvalidArgument("extra engine argument '" + flag + "' is reserved (" + it->second +
                             ")");
    }
  }
  return Status::Ok();
}

}  // namespace zest::placement
