#include "placement/reserved_args.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

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
      {"--tensor-split", "use tensor_split"},
      {"-ts", "use tensor_split"},
      {"--cache-type-k", "use cache_type_k"},
      {"-ctk", "use cache_type_k"},
      {"--cache-type-v", "use cache_type_v"},
      {"-ctv", "use cache_type_v"},
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
      {"--split-mode", "zest places the model itself"},
      {"-sm", "zest places the model itself"},
      {"--main-gpu", "zest places the model itself"},
      {"-mg", "zest places the model itself"},
      {"--override-tensor", "zest places the model itself"},
      {"-ot", "zest places the model itself"},
      {"--rpc", "zest places the model itself"},
      {"--mlock", "use no_mmap and mlock"},
      {"--no-mmap", "use no_mmap and mlock"},
      {"--mmap", "use no_mmap and mlock"},
      {"--model-draft", "zest chooses the model files"},
      {"-md", "zest chooses the model files"},
      {"--device-draft", "zest chooses the devices"},
      {"-devd", "zest chooses the devices"},
      {"--gpu-layers-draft", "zest places the model itself"},
      {"--n-gpu-layers-draft", "zest places the model itself"},
      {"-ngld", "zest places the model itself"},
      {"--model-url", "engines download nothing; use zest pull"},
      {"-mu", "engines download nothing; use zest pull"},
      {"--mmproj-url", "engines download nothing; use zest pull"},
      {"-hf", "engines download nothing; use zest pull"},
      {"-hfr", "engines download nothing; use zest pull"},
      {"-hff", "engines download nothing; use zest pull"},
      {"-hfv", "engines download nothing; use zest pull"},
      {"-hffv", "engines download nothing; use zest pull"},
      {"-hfd", "engines download nothing; use zest pull"},
      {"-hfrd", "engines download nothing; use zest pull"},
      {"-hft", "engines download nothing; use zest pull"},
      {"--docker-repo", "engines download nothing; use zest pull"},
      {"-dr", "engines download nothing; use zest pull"},
      {"--models-max", "zest is the router"},
      {"--models-preset", "zest is the router"},
      {"--models-autoload", "zest is the router"},
      {"--no-models-autoload", "zest is the router"},
      {"--api-prefix", "zest routes requests to the engine"},
      {"--reuse-port", "zest chooses the engine's socket"},
      {"--props", "clients may not change the engine's settings"},
      {"--slots", "zest reads the engine's slots"},
      {"--no-slots", "zest reads the engine's slots"},
      {"--sleep-idle-seconds", "use keep_alive"},
      {"--log-disable", "zest captures engine logs"},
      {"-v",
       "it logs every prompt and reply, and llama-server then ends a stream with a 500 when a reply is not valid UTF-8; -lv 4 logs the load details without either"},
      {"--verbose",
       "it logs every prompt and reply, and llama-server then ends a stream with a 500 when a reply is not valid UTF-8; -lv 4 logs the load details without either"},
      {"--log-verbose",
       "it logs every prompt and reply, and llama-server then ends a stream with a 500 when a reply is not valid UTF-8; -lv 4 logs the load details without either"},
  };
  return kReserved;
}

// Whole families zest owns, whatever the exact spelling.
const std::vector<std::pair<std::string, std::string>>& ReservedPrefixes() {
  static const std::vector<std::pair<std::string, std::string>> kPrefixes = {
      {"--api-key", "zest does authentication"},
      {"--ssl-", "zest terminates TLS"},
      {"--hf-", "engines download nothing; use zest pull"},
      {"--slot-save", "engines may not write files"},
      {"--log-file", "zest captures engine logs"},
      {"--metrics", "zest enables it"},
      {"--models-", "zest is the router"},
  };
  return kPrefixes;
}

// Why `flag` is reserved, or nothing.
std::optional<std::string> ReservedReason(const std::string& flag) {
  if (auto it = Reserved().find(flag); it != Reserved().end()) return it->second;
  for (const auto& [prefix, why] : ReservedPrefixes()) {
    if (flag.rfind(prefix, 0) == 0) return why;
  }
  return std::nullopt;
}

}  // namespace

Status ValidateExtraArgs(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    const std::string flag = arg.substr(0, arg.find('='));
    if (std::optional<std::string> why = ReservedReason(flag)) {
      return InvalidArgument("extra engine argument '" + flag + "' is reserved (" + *why + ")");
    }
  }
  return Status::Ok();
}

}  // namespace zest::placement
