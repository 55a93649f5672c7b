#include "config/settings.h"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iterator>

#include "config/model_tables.h"
#include "config/secure_file.h"
#include "core/duration.h"
#include "core/host_port.h"
#include "core/strings.h"

namespace zest::config {
namespace {

namespace fs = std::filesystem;

// How one setting is named in each source and how it is parsed and printed.
struct Field {
  const char* key;  // "section.name" in config.toml, also the flag key
  const char* env;  // ZEST_* variable
  std::function<Status(Settings&, const std::string&)> set;
  std::function<std::string(const Settings&)> get;
};

template <typename Int>
Status ParseInt(const std::string& text, Int min, Int max, Int& out) {
  Int v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument("'" + text + "' is not a number");
  }
  if (v < min || v > max) {
    return InvalidArgument("'" + text + "' is out of range [" + std::to_string(min) + ", " +
                           std::to_string(max) + "]");
  }
  out = v;
  return Status::Ok();
}

template <typename Int>
Field IntField(const char* key, const char* env, Int Settings::*member, Int min, Int max) {
  return {key, env,
          [=](Settings& s, const std::string& t) { return ParseInt(t, min, max, s.*member); },
          [=](const Settings& s) { return std::to_string(s.*member); }};
}

Field StringField(const char* key, const char* env, std::string Settings::*member) {
  return {key, env,
          [=](Settings& s, const std::string& t) {
            s.*member = t;
            return Status::Ok();
          },
          [=](const Settings& s) { return s.*member; }};
}

Field PathField(const char* key, const char* env, fs::path Settings::*member) {
  return {key, env,
          [=](Settings& s, const std::string& t) {
            s.*member = t;
            return Status::Ok();
          },
          [=](const Settings& s) { return (s.*member).string(); }};
}

// Kept as text (it prints as given), validated as core/duration.h reads it.
Field DurationField(const char* key, const char* env, std::string Settings::*member) {
  return {key, env,
          [=](Settings& s, const std::string& t) -> Status {
            ZEST_RETURN_IF_ERROR(ParseDuration(t).status());
            s.*member = t;
            return Status::Ok();
          },
          [=](const Settings& s) { return s.*member; }};
}

Field BoolField(const char* key, const char* env, bool Settings::*member) {
  return {key, env,
          [=](Settings& s, const std::string& t) {
            if (t == "true" || t == "1" || t == "yes") {
              s.*member = true;
            } else if (t == "false" || t == "0" || t == "no" || t.empty()) {
              s.*member = false;
            } else {
              return InvalidArgument("'" + t + "' is not true or false");
            }
            return Status::Ok();
          },
          [=](const Settings& s) { return std::string(s.*member ? "true" : "false"); }};
}

// A byte count with an optional binary suffix: "8G", "512M", "1073741824".
Status SetMemoryLimit(Settings& s, const std::string& t) {
  std::string digits = t;
  uint64_t unit = 1;
  if (!t.empty()) {
    const std::string suffixes = "KMGT";
    auto pos = suffixes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(t.back()))));
    if (pos != std::string::npos) {
      unit = 1ull << (10 * (pos + 1));
      digits.pop_back();
    }
  }
  uint64_t value = 0;
  ZEST_RETURN_IF_ERROR(ParseInt<uint64_t>(digits, 0, (1ull << 50) / unit, value));
  s.memory_limit = value * unit;
  return Status::Ok();
}

Status SetLogLevel(Settings& s, const std::string& t) {
  static constexpr const char* kLevels[] = {"trace", "debug", "info", "warn", "error"};
  for (const char* level : kLevels) {
    if (t == level) {
      s.log_level = t;
      return Status::Ok();
    }
  }
  return InvalidArgument("'" + t + "' is not one of trace, debug, info, warn, error");
}

// "10.0.0.2:50052,10.0.0.3:50052" (TOML lists arrive joined by commas):
// every worker a host (IPv4 or a name, lower-cased) and a port, none twice.
Status SetRpcWorkers(Settings& s, const std::string& t) {
  std::vector<std::string> workers;
  std::size_t start = 0;
  while (start <= t.size() && !t.empty()) {
    const std::size_t comma = std::min(t.find(',', start), t.size());
    std::string item = t.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    ZEST_ASSIGN_OR_RETURN(HostPort hp, ParseHostPort(item, "RPC worker"));
    if (hp.port == 0) return InvalidArgument("RPC worker '" + item + "' needs a port");
    if (hp.host.find(':') != std::string::npos) {
      return InvalidArgument("RPC worker '" + item +
                             "': ggml's RPC backend connects over IPv4 only");
    }
    // "Worker-1:1" and "worker-1:1" are one worker: twice, its memory would count twice.
    std::string endpoint = AsciiLower(hp.host) + ":" + std::to_string(hp.port);
    if (std::find(workers.begin(), workers.end(), endpoint) != workers.end()) {
      return InvalidArgument("RPC worker '" + item + "' is listed twice");
    }
    workers.push_back(std::move(endpoint));
    start = comma + 1;
  }
  s.rpc_workers = std::move(workers);
  return Status::Ok();
}

Status SetLogFormat(Settings& s, const std::string& t) {
  if (t != "text" && t != "json") return InvalidArgument("'" + t + "' is not text or json");
  s.log_format = t;
  return Status::Ok();
}

const std::vector<Field>& Fields();

const Field* FindField(const std::string& key) {
  for (const Field& f : Fields()) {
    if (key == f.key) return &f;
  }
  return nullptr;
}

// The listener, and where models come from.
std::vector<Field> ServerAndModelFields() {
  return {
      StringField("server.host", "ZEST_BIND_HOST", &Settings::host),
      StringField("server.ollama_listen", "ZEST_OLLAMA_LISTEN", &Settings::ollama_listen),
      IntField<uint16_t>("server.port", "ZEST_PORT", &Settings::port, 0, 65535),
      IntField<uint64_t>("server.max_body_bytes", "ZEST_MAX_BODY_BYTES", &Settings::max_body_bytes,
                         1024, 1ull << 34),
      IntField<uint64_t>("server.max_body_memory_mb", "ZEST_MAX_BODY_MEMORY_MB",
                         &Settings::max_body_memory_mb, 0, 1ull << 24),
      IntField("server.io_threads", "ZEST_IO_THREADS", &Settings::io_threads, 1, 256),
      IntField("server.drain_timeout_s", "ZEST_DRAIN_TIMEOUT", &Settings::drain_timeout_s, 0, 3600),
      IntField("server.shutdown_delay_s", "ZEST_SHUTDOWN_DELAY", &Settings::shutdown_delay_s, 0,
               600),
      PathField("models.dir", "ZEST_MODELS_DIR", &Settings::models_dir),
      PathField("cluster.manifest", "ZEST_CLUSTER_MANIFEST", &Settings::cluster_manifest),
      PathField("models.hf_hub_cache", "HF_HUB_CACHE", &Settings::hf_hub_cache),
      BoolField("models.ollama", "ZEST_OLLAMA_STORE", &Settings::ollama_store),
      PathField("models.ollama_dir", "OLLAMA_MODELS", &Settings::ollama_models),
      BoolField("models.lmstudio", "ZEST_LMSTUDIO_STORE", &Settings::lmstudio_store),
      PathField("models.lmstudio_dir", "ZEST_LMSTUDIO_MODELS", &Settings::lmstudio_models),
      StringField("hub.endpoint", "HF_ENDPOINT", &Settings::hf_endpoint),
      StringField("hub.token", "HF_TOKEN", &Settings::hf_token),
      IntField("pull.connections", "ZEST_PULL_CONNECTIONS", &Settings::pull_connections, 1, 16),
      IntField("pull.stall_timeout_s", "ZEST_PULL_STALL_TIMEOUT", &Settings::pull_stall_timeout_s,
               1, 3600),
  };
}

// The engines and how they run.
std::vector<Field> EngineFields() {
  return {
      PathField("engine.llama_server", "ZEST_LLAMA_SERVER", &Settings::llama_server),
      PathField("engine.whisper_server", "ZEST_WHISPER_SERVER", &Settings::whisper_server),
      PathField("engine.sd_server", "ZEST_SD_SERVER", &Settings::sd_server),
      PathField("engine.llama_tts", "ZEST_LLAMA_TTS", &Settings::llama_tts),
      PathField("engine.rootfs", "ZEST_ENGINE_ROOTFS", &Settings::engine_rootfs),
      PathField("engine.flm", "ZEST_FLM", &Settings::flm),
      PathField("engine.rpc_server", "ZEST_RPC_SERVER", &Settings::rpc_server),
      IntField("engine.ctx_size", "ZEST_CTX_SIZE", &Settings::ctx_size, 0, 1 << 24),
      IntField("engine.parallel", "ZEST_PARALLEL", &Settings::parallel, 1, 256),
      IntField("engine.threads", "ZEST_THREADS", &Settings::threads, 0, 1024),
      IntField("engine.ready_timeout_s", "ZEST_READY_TIMEOUT", &Settings::ready_timeout_s, 1, 3600),
      IntField("engine.watchdog_s", "ZEST_WATCHDOG", &Settings::watchdog_s, 0, 3600),
      IntField("engine.restart_backoff_ms", "ZEST_RESTART_BACKOFF_MS",
               &Settings::restart_backoff_ms, 0, 3'600'000),
      IntField("engine.restart_backoff_max_s", "ZEST_RESTART_BACKOFF_MAX",
               &Settings::restart_backoff_max_s, 1, 86400),
  };
}

// Queues, keep-alive, slots and replicas.
std::vector<Field> SchedulerFields() {
  return {
      IntField("scheduler.max_queue", "ZEST_MAX_QUEUE", &Settings::max_queue, 0, 1 << 20),
      IntField("scheduler.queue_timeout_s", "ZEST_QUEUE_TIMEOUT", &Settings::queue_timeout_s, 1,
               86400),
      IntField<uint64_t>("scheduler.max_queued_tokens", "ZEST_MAX_QUEUED_TOKENS",
                         &Settings::max_queued_tokens, 1, 1ull << 40),
      IntField("scheduler.aging_s", "ZEST_QUEUE_AGING", &Settings::aging_s, 0, 86400),
      IntField("scheduler.reserved_slots", "ZEST_RESERVED_SLOTS", &Settings::reserved_slots, 0, 64),
      DurationField("scheduler.keep_alive", "ZEST_KEEP_ALIVE", &Settings::keep_alive),
      IntField("scheduler.heartbeat_s", "ZEST_HEARTBEAT", &Settings::heartbeat_s, 0, 3600),
      BoolField("scheduler.save_slots", "ZEST_SAVE_SLOTS", &Settings::save_slots),
      IntField<uint64_t>("scheduler.session_cache_mb", "ZEST_SESSION_CACHE_MB",
                         &Settings::session_cache_mb, 0, 1ull << 24),
      IntField<uint64_t>("scheduler.session_prompts_mb", "ZEST_SESSION_PROMPTS_MB",
                         &Settings::session_prompts_mb, 1, 1ull << 16),
      BoolField("scheduler.autoscale", "ZEST_AUTOSCALE", &Settings::autoscale),
      IntField("scheduler.autoscale_max_replicas", "ZEST_AUTOSCALE_MAX_REPLICAS",
               &Settings::autoscale_max_replicas, 1, 64),
      IntField("scheduler.autoscale_window_s", "ZEST_AUTOSCALE_WINDOW",
               &Settings::autoscale_window_s, 1, 86400),
      IntField("scheduler.autoscale_idle_s", "ZEST_AUTOSCALE_IDLE", &Settings::autoscale_idle_s, 1,
               86400),
      IntField<uint64_t>("scheduler.split_prefill_tokens", "ZEST_SPLIT_PREFILL",
                         &Settings::split_prefill_tokens, 0, 1ull << 24),
  };
}

// Logging, placement and the host's roots.
std::vector<Field> HostFields() {
  return {
      Field{"log.level", "ZEST_LOG_LEVEL", SetLogLevel,
            [](const Settings& s) { return s.log_level; }},
      Field{"placement.memory_limit", "ZEST_MEMORY_LIMIT", SetMemoryLimit,
            [](const Settings& s) { return std::to_string(s.memory_limit); }},
      IntField("placement.memory_wait_s", "ZEST_MEMORY_WAIT", &Settings::memory_wait_s, 0, 86400),
      Field{"rpc.workers", "ZEST_RPC_WORKERS", SetRpcWorkers,
            [](const Settings& s) {
              std::string joined;
              for (const std::string& w : s.rpc_workers) joined += (joined.empty() ? "" : ",") + w;
              return joined;
            }},
      PathField("hardware.sysfs_root", "ZEST_SYSFS_ROOT", &Settings::sysfs_root),
      PathField("hardware.procfs_root", "ZEST_PROCFS_ROOT", &Settings::procfs_root),
      PathField("hardware.devfs_root", "ZEST_DEVFS_ROOT", &Settings::devfs_root),
      PathField("server.runtime_dir", "XDG_RUNTIME_DIR", &Settings::runtime_dir),
  };
}

// Security and limits.
std::vector<Field> SecurityFields() {
  return {
      StringField("server.api_key", "ZEST_API_KEY", &Settings::api_key),
      BoolField("server.insecure_no_auth", "ZEST_INSECURE_NO_AUTH", &Settings::insecure_no_auth),
      StringField("server.cors_origins", "ZEST_CORS_ORIGINS", &Settings::cors_origins),
      PathField("server.tls_cert", "ZEST_TLS_CERT", &Settings::tls_cert),
      PathField("server.tls_key", "ZEST_TLS_KEY", &Settings::tls_key),
      IntField<uint16_t>("server.https_redirect_port", "ZEST_HTTPS_REDIRECT_PORT",
                         &Settings::https_redirect_port, 0, 65535),
      IntField<uint64_t>("server.max_header_bytes", "ZEST_MAX_HEADER_BYTES",
                         &Settings::max_header_bytes, 1024, 1 << 24),
      IntField("server.header_timeout_s", "ZEST_HEADER_TIMEOUT", &Settings::header_timeout_s, 1,
               3600),
      IntField("server.body_timeout_s", "ZEST_BODY_TIMEOUT", &Settings::body_timeout_s, 1, 86400),
      IntField("server.idle_timeout_s", "ZEST_IDLE_TIMEOUT", &Settings::idle_timeout_s, 1, 86400),
      IntField("server.max_connections_per_client", "ZEST_MAX_CONNECTIONS_PER_CLIENT",
               &Settings::max_connections_per_client, 0, 1 << 20),
      IntField("server.max_json_depth", "ZEST_MAX_JSON_DEPTH", &Settings::max_json_depth, 2, 10000),
      IntField("server.max_messages", "ZEST_MAX_MESSAGES", &Settings::max_messages, 1, 1 << 20),
      IntField("server.max_tokens_cap", "ZEST_MAX_TOKENS_CAP", &Settings::max_tokens_cap, 1,
               1 << 30),
      IntField("server.max_choices", "ZEST_MAX_CHOICES", &Settings::max_choices, 1, 128),
      IntField("server.max_prompts", "ZEST_MAX_PROMPTS", &Settings::max_prompts, 1, 4096),
      IntField("server.max_inputs", "ZEST_MAX_INPUTS", &Settings::max_inputs, 1, 65536),
      IntField("server.max_connections", "ZEST_MAX_CONNECTIONS", &Settings::max_connections, 0,
               1 << 20),
      StringField("server.allowed_hosts", "ZEST_ALLOWED_HOSTS", &Settings::allowed_hosts),
      StringField("server.image_url_hosts", "ZEST_IMAGE_URL_HOSTS", &Settings::image_url_hosts),
      IntField("limits.default_max_tokens", "ZEST_DEFAULT_MAX_TOKENS",
               &Settings::default_max_tokens, 1, 1 << 30),
      IntField("limits.max_audio_s", "ZEST_MAX_AUDIO_S", &Settings::max_audio_s, 1, 86400),
      IntField("limits.max_audio_memory_mb", "ZEST_MAX_AUDIO_MEMORY_MB",
               &Settings::max_audio_memory_mb, 0, 1 << 20),
      // The text reaches llama-tts as one argument (-p TEXT), which Linux
      // caps at 128 KiB (MAX_ARG_STRLEN): 32000 characters of up to four
      // bytes stay under it, and under the tts-engine's 1 MiB body limit.
      IntField("limits.max_speech_chars", "ZEST_MAX_SPEECH_CHARS", &Settings::max_speech_chars, 1,
               32000),
      IntField("limits.max_images", "ZEST_MAX_IMAGES", &Settings::max_images, 0, 4096),
      IntField("limits.max_image_mb", "ZEST_MAX_IMAGE_MB", &Settings::max_image_mb, 1, 1024),
      IntField<int64_t>("limits.max_image_pixels", "ZEST_MAX_IMAGE_PIXELS",
                        &Settings::max_image_pixels, 1, int64_t{1} << 32),
      IntField<int64_t>("limits.max_request_pixels", "ZEST_MAX_REQUEST_PIXELS",
                        &Settings::max_request_pixels, 1, int64_t{1} << 36),
      Field{"security.max_keep_alive", "ZEST_MAX_KEEP_ALIVE",
            [](Settings& s, const std::string& t) -> Status {
              if (!t.empty()) ZEST_RETURN_IF_ERROR(ParseDuration(t).status());
              s.max_keep_alive = t;
              return Status::Ok();
            },
            [](const Settings& s) { return s.max_keep_alive; }},
      BoolField("security.share_prompt_cache", "ZEST_SHARE_PROMPT_CACHE",
                &Settings::share_prompt_cache),
      BoolField("metrics.public", "ZEST_METRICS_PUBLIC", &Settings::metrics_public),
      Field{"log.format", "ZEST_LOG_FORMAT", SetLogFormat,
            [](const Settings& s) { return s.log_format; }},
      BoolField("metrics.enabled", "ZEST_METRICS", &Settings::metrics_enabled),
  };
}

// Every setting, in the order `zest config` lists them; made once.
const std::vector<Field>& Fields() {
  static const std::vector<Field> kFields = [] {
    std::vector<Field> all;
    for (auto section :
         {ServerAndModelFields, EngineFields, SchedulerFields, HostFields, SecurityFields}) {
      std::vector<Field> fields = section();
      all.insert(all.end(), std::make_move_iterator(fields.begin()),
                 std::make_move_iterator(fields.end()));
    }
    return all;
  }();
  return kFields;
}

// TOML values are rendered to text and go through the same parser as env
// vars and flags, so every source is validated identically.
std::optional<std::string> TomlText(const toml::node& node) {
  if (auto s = node.value<std::string>()) return *s;
  if (auto i = node.value<int64_t>()) return std::to_string(*i);
  if (auto b = node.value<bool>()) return *b ? "true" : "false";
  if (const toml::array* list = node.as_array()) {  // cors_origins = ["a", "b"]
    std::string joined;
    for (const toml::node& item : *list) {
      auto text = item.value<std::string>();
      if (!text) return std::nullopt;
      joined += (joined.empty() ? "" : ",") + *text;
    }
    return joined;
  }
  return std::nullopt;
}

struct Loader {
  const LoadInputs& inputs;
  LoadedSettings out;
  std::map<std::string, std::pair<Source, std::string>> origin;

  Status Apply(const Field& f, const std::string& text, Source source, const std::string& detail) {
    Status st = f.set(out.settings, text);
    if (!st.ok()) {
      return InvalidArgument(std::string(f.key) + ": " + st.message() + " (" + SourceName(source) +
                             " " + detail + ")");
    }
    origin[f.key] = {source, detail};
    return Status::Ok();
  }

  Status ApplyFile(const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return Status::Ok();
    toml::table parsed;
    try {
      parsed = toml::parse_file(file.string());
    } catch (const toml::parse_error& err) {  // Debian's toml++ reports errors by exception
      return InvalidArgument(file.string() + ":" + std::to_string(err.source().begin.line) + ": " +
                             std::string(err.description()));
    }
    ZEST_RETURN_IF_ERROR(CheckFilePermissions(
        file, 0022, "group or others may change it, and it decides whom zest trusts"));
    // Secrets: refused, not warned about, when others may read them (a
    // warning in a log nobody reads leaves the token readable; the fix is
    // one chmod). hub.token is the user's Hugging Face account.
    for (const char* secret : {"server.api_key", "hub.token"}) {
      if (parsed.at_path(secret).node() == nullptr) continue;
      ZEST_RETURN_IF_ERROR(CheckFilePermissions(
          file, 0077, "it holds " + std::string(secret) + " and must be private to its owner"));
    }
    for (const Field& f : Fields()) {
      const toml::node* node = parsed.at_path(f.key).node();
      if (node == nullptr) continue;
      std::optional<std::string> text = TomlText(*node);
      if (!text)
        return InvalidArgument(std::string(f.key) + ": unsupported value type in " + file.string());
      ZEST_RETURN_IF_ERROR(Apply(f, *text, Source::kFile, file.string()));
    }
    if (const toml::table* models = parsed["models"].as_table()) {
      ZEST_RETURN_IF_ERROR(ParseModelTables(*models, file.string(), out.settings.model_settings));
    }
    if (const toml::node* aliases = parsed.get("aliases")) {
      const toml::table* table = aliases->as_table();
      if (table == nullptr) return InvalidArgument("aliases: a table in " + file.string());
      for (const auto& [pattern, target] : *table) {
        const std::optional<std::string_view> model = target.value<std::string_view>();
        if (!model) {
          return InvalidArgument("aliases." + std::string(pattern.str()) +
                                 ": a model name (a string) in " + file.string());
        }
        out.settings.aliases.emplace_back(std::string(pattern.str()), std::string(*model));
      }
    }
    return Status::Ok();
  }

  Status ApplyEnv() {
    for (const Field& f : Fields()) {
      if (auto v = inputs.getenv(f.env)) ZEST_RETURN_IF_ERROR(Apply(f, *v, Source::kEnv, f.env));
    }
    // ZEST_HOST is also what clients use to find the server ("host:port" or
    // a URL), as OLLAMA_HOST is for Ollama; `serve` binds to it.
    if (auto v = inputs.getenv("ZEST_HOST")) ZEST_RETURN_IF_ERROR(ApplyHostUrl(*v));
    return Status::Ok();
  }

  Status ApplyHostUrl(std::string text) {
    if (auto p = text.find("://"); p != std::string::npos) text = text.substr(p + 3);
    if (!text.empty() && text.back() == '/') text.pop_back();
    auto colon = text.rfind(':');
    bool bracketed_v6 = !text.empty() && text.front() == '[';
    if (colon != std::string::npos && (!bracketed_v6 || text[colon - 1] == ']')) {
      ZEST_RETURN_IF_ERROR(
          Apply(*FindField("server.port"), text.substr(colon + 1), Source::kEnv, "ZEST_HOST"));
      text = text.substr(0, colon);
    }
    if (bracketed_v6) text = text.substr(1, text.size() - 2);
    return Apply(*FindField("server.host"), text, Source::kEnv, "ZEST_HOST");
  }

  Status ApplyFlags() {
    for (const auto& [key, value] : inputs.flags) {
      const Field* field = FindField(key);
      if (field == nullptr) return InvalidArgument("unknown setting '" + key + "'");
      ZEST_RETURN_IF_ERROR(Apply(*field, value, Source::kFlag, "--" + key));
    }
    return Status::Ok();
  }
};

// A variable's value when set and non-empty.
std::optional<std::string> NonEmpty(const LoadInputs& inputs, const char* name) {
  auto v = inputs.getenv(name);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

// The Hugging Face cache when HF_HUB_CACHE does not say: huggingface_hub's
// order. Returns the path and the variable it came from ("" for HOME's).
std::pair<fs::path, std::string> DefaultHubCache(const LoadInputs& inputs) {
  if (auto home = NonEmpty(inputs, "HF_HOME")) return {fs::path(*home) / "hub", "HF_HOME"};
  if (auto xdg = NonEmpty(inputs, "XDG_CACHE_HOME")) {
    return {fs::path(*xdg) / "huggingface" / "hub", "XDG_CACHE_HOME"};
  }
  return {fs::path(NonEmpty(inputs, "HOME").value_or("/tmp")) / ".cache/huggingface/hub", ""};
}

// Where scripts/provision-engines.sh puts the engine rootfs.
fs::path DefaultEngineRootfs(const LoadInputs& inputs) {
  if (::geteuid() == 0) return "/var/cache/zest/engines/debian-sid";
  fs::path cache =
      NonEmpty(inputs, "XDG_CACHE_HOME")
          .value_or((fs::path(NonEmpty(inputs, "HOME").value_or("/")) / ".cache").string());
  return cache / "zest/engines/debian-sid";
}

// The directories of Ollama's and LM Studio's stores: the one configured,
// else each tool's defaults (those under HOME only when HOME is set).
void SetOtherStoreRoots(Settings& s, const LoadInputs& inputs) {
  const std::string home = inputs.getenv("HOME").value_or("");
  s.ollama_roots.clear();
  s.lmstudio_roots.clear();
  if (s.ollama_store) {
    if (!s.ollama_models.empty()) {
      s.ollama_roots = {s.ollama_models};
    } else {
      if (!home.empty()) s.ollama_roots.push_back(fs::path(home) / ".ollama/models");
      s.ollama_roots.emplace_back("/usr/share/ollama/.ollama/models");
    }
  }
  if (s.lmstudio_store) {
    if (!s.lmstudio_models.empty()) {
      s.lmstudio_roots = {s.lmstudio_models};
    } else if (!home.empty()) {
      s.lmstudio_roots = {fs::path(home) / ".lmstudio/models",
                          fs::path(home) / ".cache/lm-studio/models"};
    }
  }
}

fs::path DefaultHome(const LoadInputs& inputs) {
  if (auto home = inputs.getenv("ZEST_HOME"); home && !home->empty()) return *home;
  if (auto xdg = inputs.getenv("XDG_DATA_HOME"); xdg && !xdg->empty())
    return fs::path(*xdg) / "zest";
  std::string user_home = inputs.getenv("HOME").value_or("/tmp");
  return fs::path(user_home) / ".local/share/zest";
}

}  // namespace

const char* SourceName(Source source) {
  switch (source) {
    case Source::kDefault:
      return "default";
    case Source::kFile:
      return "file";
    case Source::kEnv:
      return "env";
    case Source::kFlag:
      return "flag";
  }
  return "?";
}

Result<LoadedSettings> LoadSettings(const LoadInputs& inputs) {
  Loader loader{inputs, {}, {}};
  Settings& s = loader.out.settings;
  s.home = DefaultHome(inputs);
  fs::path file = inputs.config_file.value_or(s.home / "config.toml");
  ZEST_RETURN_IF_ERROR(loader.ApplyFile(file));
  ZEST_RETURN_IF_ERROR(loader.ApplyEnv());
  ZEST_RETURN_IF_ERROR(loader.ApplyFlags());
  if (s.models_dir.empty()) s.models_dir = s.home / "models";
  if (s.hf_hub_cache.empty()) {
    auto [cache, from] = DefaultHubCache(inputs);
    s.hf_hub_cache = cache;
    if (from.empty()) {
      loader.origin.erase("models.hf_hub_cache");  // an empty HF_HUB_CACHE says nothing
    } else {
      loader.origin["models.hf_hub_cache"] = {Source::kEnv, from};
    }
  }
  while (s.hf_endpoint.size() > 1 && s.hf_endpoint.back() == '/') s.hf_endpoint.pop_back();
  SetOtherStoreRoots(s, inputs);
  if (s.engine_rootfs.empty()) s.engine_rootfs = DefaultEngineRootfs(inputs);
  if (s.runtime_dir.empty()) s.runtime_dir = "/tmp";

  loader.out.origins.push_back({"home", s.home.string(),
                                inputs.getenv("ZEST_HOME") ? Source::kEnv : Source::kDefault,
                                inputs.getenv("ZEST_HOME") ? "ZEST_HOME" : ""});
  for (const Field& f : Fields()) {
    auto it = loader.origin.find(f.key);
    Source source = it == loader.origin.end() ? Source::kDefault : it->second.first;
    std::string detail = it == loader.origin.end() ? "" : it->second.second;
    std::string value = f.get(s);
    // Secrets are shown as set or not, never printed.
    const std::string_view key = f.key;
    if ((key == "server.api_key" || key == "hub.token") && !value.empty()) value = "(set)";
    loader.out.origins.push_back({f.key, value, source, detail});
  }
  return std::move(loader.out);
}

std::vector<std::pair<std::string, std::string>> SettingKeys() {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const Field& f : Fields()) keys.emplace_back(f.key, f.env);
  return keys;
}

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

}  // namespace zest::config
