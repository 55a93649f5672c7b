#include "config/settings.h"

#include <charconv>
#include <cstdlib>
#include <toml++/toml.h>

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

Status SetLogLevel(Settings& s, const std::string& t) {
  static const char* kLevels[] = {"trace", "debug", "info", "warn", "error"};
  for (const char* level : kLevels) {
    if (t == level) {
      s.log_level = t;
      return Status::Ok();
    }
  }
  return InvalidArgument("'" + t + "' is not one of trace, debug, info, warn, error");
}

Status SetLogFormat(Settings& s, const std::string& t) {
  if (t != "text" && t != "json") return InvalidArgument("'" + t + "' is not text or json");
  s.log_format = t;
  return Status::Ok();
}

Field BoolField(const char* key, const char* env, bool Settings::*member) {
  return {key, env,
          [=](Settings& s, const std::string& t) {
            if (t == "true" || t == "1") s.*member = true;
            else if (t == "false" || t == "0") s.*member = false;
            else return InvalidArgument("'" + t + "' is not true or false");
            return Status::Ok();
          },
          [=](const Settings& s) { return std::string(s.*member ? "true" : "false"); }};
}

const std::vector<Field>& Fields();

const Field* FindField(const std::string& key) {
  for (const Field& f : Fields()) {
    if (key == f.key) return &f;
  }
  return nullptr;
}

const std::vector<Field>& Fields() {
  static const std::vector<Field> kFields = {
      StringField("server.host", "ZEST_BIND_HOST", &Settings::host),
      IntField<uint16_t>("server.port", "ZEST_PORT", &Settings::port, 0, 65535),
      IntField<uint64_t>("server.max_body_bytes", "ZEST_MAX_BODY_BYTES", &Settings::max_body_bytes,
                         1024, 1ull << 34),
      IntField("server.io_threads", "ZEST_IO_THREADS", &Settings::io_threads, 1, 256),
      PathField("models.dir", "ZEST_MODELS_DIR", &Settings::models_dir),
      PathField("engine.llama_server", "ZEST_LLAMA_SERVER", &Settings::llama_server),
      PathField("engine.rootfs", "ZEST_ENGINE_ROOTFS", &Settings::engine_rootfs),
      IntField("engine.ctx_size", "ZEST_CTX_SIZE", &Settings::ctx_size, 0, 1 << 24),
      IntField("engine.parallel", "ZEST_PARALLEL", &Settings::parallel, 1, 256),
      IntField("engine.threads", "ZEST_THREADS", &Settings::threads, 0, 1024),
      IntField("engine.ready_timeout_s", "ZEST_READY_TIMEOUT", &Settings::ready_timeout_s, 1,
               3600),
      IntField("scheduler.max_queue", "ZEST_MAX_QUEUE", &Settings::max_queue, 0, 1 << 20),
      IntField("scheduler.queue_timeout_s", "ZEST_QUEUE_TIMEOUT", &Settings::queue_timeout_s, 1,
               86400),
      IntField<uint64_t>("scheduler.max_queued_tokens", "ZEST_MAX_QUEUED_TOKENS",
                         &Settings::max_queued_tokens, 1, 1ull << 40),
      IntField("scheduler.aging_s", "ZEST_QUEUE_AGING", &Settings::aging_s, 0, 86400),
      Field{"log.level", "ZEST_LOG_LEVEL", SetLogLevel,
            [](const Settings& s) { return s.log_level; }},
      Field{"log.format", "ZEST_LOG_FORMAT", SetLogFormat,
            [](const Settings& s) { return s.log_format; }},
      BoolField("metrics.enabled", "ZEST_METRICS", &Settings::metrics_enabled),
  };
  return kFields;
}

// TOML values are rendered to text and go through the same parser as env
// vars and flags, so every source is validated identically.
std::optional<std::string> TomlText(const toml::node& node) {
  if (auto s = node.value<std::string>()) return *s;
  if (auto i = node.value<int64_t>()) return std::to_string(*i);
  if (auto b = node.value<bool>()) return *b ? "true" : "false";
  return std::nullopt;
}

struct Loader {
  const LoadInputs& inputs;
  LoadedSettings out;
  std::map<std::string, std::pair<Source, std::string>> origin;

  Status Apply(const Field& f, const std::string& text, Source source, const std::string& detail) {
    Status st = f.set(out.settings, text);
    if (!st.ok()) {
      return InvalidArgument(std::string(f.key) + ": " + st.message() + " (" +
                             SourceName(source) + " " + detail + ")");
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
    for (const Field& f : Fields()) {
      const toml::node* node = parsed.at_path(f.key).node();
      if (node == nullptr) continue;
      std::optional<std::string> text = TomlText(*node);
      if (!text) return InvalidArgument(std::string(f.key) + ": unsupported value type in " + file.string());
      ZEST_RETURN_IF_ERROR(Apply(f, *text, Source::kFile, file.string()));
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
      ZEST_RETURN_IF_ERROR(Apply(*FindField("server.port"), text.substr(colon + 1), Source::kEnv, "ZEST_HOST"));
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

fs::path DefaultHome(const LoadInputs& inputs) {
  if (auto home = inputs.getenv("ZEST_HOME"); home && !home->empty()) return *home;
  if (auto xdg = inputs.getenv("XDG_DATA_HOME"); xdg && !xdg->empty()) return fs::path(*xdg) / "zest";
  std::string user_home = inputs.getenv("HOME").value_or("/tmp");
  return fs::path(user_home) / ".local/share/zest";
}

}  // namespace

const char* SourceName(Source source) {
  switch (source) {
    case Source::kDefault: return "default";
    case Source::kFile: return "file";
    case Source::kEnv: return "env";
    case Source::kFlag: return "flag";
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

  loader.out.origins.push_back({"home", s.home.string(),
                                inputs.getenv("ZEST_HOME") ? Source::kEnv : Source::kDefault,
                                inputs.getenv("ZEST_HOME") ? "ZEST_HOME" : ""});
  for (const Field& f : Fields()) {
    auto it = loader.origin.find(f.key);
    Source source = it == loader.origin.end() ? Source::kDefault : it->second.first;
    std::string detail = it == loader.origin.end() ? "" : it->second.second;
    loader.out.origins.push_back({f.key, f.get(s), source, detail});
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
