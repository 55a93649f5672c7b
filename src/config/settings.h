// Settings: zest's configuration, resolved once at startup from, in rising
// precedence: built-in defaults → $ZEST_HOME/config.toml → ZEST_* environment
// variables → command-line flags. Each value remembers where it came from so
// `zest config` can explain the effective configuration.
// Plain data once loaded; safe to share read-only between threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/result.h"

namespace zest::config {

struct Settings {
  // [server]
  std::string host = "127.0.0.1";
  // A second listener for apps that hard-code Ollama's address,
  // "127.0.0.1:11434"; "" (the default): none.
  std::string ollama_listen;
  uint16_t port = 9378;
  uint64_t max_body_bytes = 32ull * 1024 * 1024;
  // MiB of request bodies held in memory at once, over all connections
  // (core/byte_budget.h); 0 = no limit.
  uint64_t max_body_memory_mb = 512;
  int io_threads = 2;
  int drain_timeout_s = 30;  // on SIGTERM: how long running requests may finish
  // On SIGTERM: how long to go on serving with /ready at 503 before closing
  // the listener, so a load balancer's checks see the node leave first.
  int shutdown_delay_s = 0;
  // [cluster] manifest: the models every node must hold (TOML; relative to
  // $ZEST_HOME); "" = none.
  std::filesystem::path cluster_manifest;
  // [models]
  std::filesystem::path home;  // $ZEST_HOME, default $XDG_DATA_HOME/zest or ~/.local/share/zest
  std::filesystem::path models_dir;  // default <home>/models
  // The Hugging Face cache zest serves from and pulls into: HF_HUB_CACHE,
  // else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
  // ~/.cache/huggingface/hub (huggingface_hub's own order).
  std::filesystem::path hf_hub_cache;
  // Other tools' model stores, served in place (models/ollama_store.h,
  // models/lmstudio_store.h). Each can be turned off; its directory is the
  // one given, else the tool's own defaults: Ollama's OLLAMA_MODELS, else
  // ~/.ollama/models and /usr/share/ollama/.ollama/models (its system
  // service's); LM Studio's ~/.lmstudio/models and ~/.cache/lm-studio/models.
  bool ollama_store = true;
  std::filesystem::path ollama_models;  // models.ollama_dir, OLLAMA_MODELS
  bool lmstudio_store = true;
  std::filesystem::path lmstudio_models;  // models.lmstudio_dir, ZEST_LMSTUDIO_MODELS
  // What LoadSettings made of the four above: the directories to read
  // (none when off; without HOME, no home directory's).
  std::vector<std::filesystem::path> ollama_roots;
  std::vector<std::filesystem::path> lmstudio_roots;
  // [hub]
  std::string hf_endpoint = "https://huggingface.co";  // HF_ENDPOINT
  std::string hf_token;                                // HF_TOKEN; secret (never printed)
  // [pull]
  int pull_connections = 4;       // parallel ranges per file of 32 MiB or more
  int pull_stall_timeout_s = 30;  // no byte this long: reconnect
  // [engine]
  std::filesystem::path llama_server;    // configured engine binary; empty = search
  std::filesystem::path whisper_server;  // speech-to-text engine; empty = search
  std::filesystem::path sd_server;       // image engine (stable-diffusion.cpp); empty = search
  std::filesystem::path llama_tts;  // speech-out engine (llama.cpp's llama-tts); empty = search
  // The Debian sid rootfs scripts/provision-engines.sh makes: ZEST_ENGINE_ROOTFS,
  // else /var/cache/zest/engines/debian-sid as root, else
  // $XDG_CACHE_HOME (or ~/.cache)/zest/engines/debian-sid.
  std::filesystem::path engine_rootfs;
  std::filesystem::path flm;  // FastFlowLM's `flm` (NPU engine); empty = search PATH
  // ggml's RPC server for `zest worker`; empty = PATH, then the rootfs.
  std::filesystem::path rpc_server;
  int ctx_size = 4096;        // per request (slot); 0 = the model's own
  int parallel = 4;           // slots per instance
  int threads = 0;            // engine threads; 0 = engine default
  int ready_timeout_s = 120;  // how long an engine may take to load
  int watchdog_s = 30;        // an engine silent this long (hung, stopped) is killed; 0 = off
  // An engine that fails on its own (not killed from outside) holds its
  // model off for this long, doubling with each failure in a row up to the
  // max (scheduler/crash_loop.h); 0 = never held off.
  int restart_backoff_ms = 1000;
  int restart_backoff_max_s = 60;
  // [scheduler]
  int max_queue = 64;                      // waiting requests per model
  int queue_timeout_s = 300;               // how long a request may wait for a slot
  uint64_t max_queued_tokens = 1'000'000;  // estimated prompt tokens waiting per model
  int aging_s = 10;                        // wait that lifts a request one priority class
  int reserved_slots = 1;                  // extra engine slots only high priority may use
  std::string keep_alive = "10m";          // idle time before a model unloads (core/duration.h)
  int heartbeat_s = 5;                     // SSE comment interval while a stream waits; 0 = off
  bool save_slots = true;                  // keep an unloaded model's conversations (KV cache)
  // The session tier (scheduler/session_tier.h): conversations in the
  // engine's RAM cache saved to disk too at an unload; MiB of files, 0 = off.
  uint64_t session_cache_mb = 2048;
  uint64_t session_prompts_mb = 64;  // MiB of each session's last request kept to save it
  bool autoscale = true;             // add replicas of a model whose queue stays long
  int autoscale_max_replicas = 2;    // instances per model, the first included
  int autoscale_window_s = 10;       // how long the queue stays long before one is added
  int autoscale_idle_s = 60;         // how long an extra instance idles before it goes
  // Experimental prefill/decode split (relay/prefill_handoff.h): prompts of at
  // least this many (estimated) tokens prefill on another instance; 0 = off.
  uint64_t split_prefill_tokens = 0;
  // [log]
  std::string log_level = "info";
  std::string log_format = "text";  // "text" (spdlog's) or "json" (one object per line)
  // [placement]
  // Bytes of system RAM zest may fill with engines (0 = what the machine has
  // available at startup); "8G", "512M" accepted.
  uint64_t memory_limit = 0;
  int memory_wait_s = 300;  // a load waits this long for busy instances to go idle (then 507)
  // [rpc] workers: machines running `zest worker` (ggml's RPC server) that
  // a model too large for this one may be spread over, "HOST:PORT" each
  // (host lower-cased: as engines and placement name them).
  std::vector<std::string> rpc_workers;
  // [models."name"] tables: per-model engine options (model_settings.h).
  std::map<std::string, ModelSettings> model_settings;
  // [aliases]: other names (or glob patterns) for models, "pattern" = "model"
  // (models/model_aliases.h).
  std::vector<std::pair<std::string, std::string>> aliases;
  // [hardware] where discovery reads /sys, /proc and /dev (fixture trees in tests)
  std::filesystem::path sysfs_root = "/sys";
  std::filesystem::path procfs_root = "/proc";
  std::filesystem::path devfs_root = "/dev";
  // Where the per-run directory of engine sockets goes: XDG_RUNTIME_DIR when
  // it is a directory, else /tmp.
  std::filesystem::path runtime_dir;
  // [server] security and limits (see README "Security")
  std::string api_key;             // one admin key; secret (never printed)
  bool insecure_no_auth = false;   // allow a non-loopback bind without keys
  std::string cors_origins;        // comma-separated exact origins
  std::filesystem::path tls_cert;  // PEM chain; with tls_key, serve HTTPS
  std::filesystem::path tls_key;
  uint16_t https_redirect_port = 0;  // with TLS: plain HTTP here answers 308 to HTTPS; 0 = off
  uint64_t max_header_bytes = 64 * 1024;
  int header_timeout_s = 10;             // accept/first byte → headers complete
  int body_timeout_s = 120;              // headers → body complete
  int idle_timeout_s = 60;               // between requests on a kept-alive connection
  int max_connections_per_client = 256;  // per remote address; 0 = unlimited
  int max_json_depth = 64;               // nesting of a request body
  int max_messages = 4096;               // chat messages per request
  int max_tokens_cap = 131072;           // largest max_tokens a request may ask for
  int max_choices = 4;  // largest `n` (choices in one answer) a request may ask for
  // Prompts in one text completion's list: each is a sequence the engine
  // runs at once in a slot of its own, as each of `n` is.
  int max_prompts = 16;
  // Inputs in one embeddings request's list (OpenAI's own limit).
  int max_inputs = 2048;
  int max_connections = 1024;  // in all; 0 = unlimited (see http/connection.h)
  std::string allowed_hosts;   // comma-separated Host names besides loopback and
                               // the bind address (DNS-rebinding guard)
  // Comma-separated hosts zest fetches chat images from when a request
  // names an http(s) URL; empty (the default): none, the bytes must come
  // in the request (api/chat_images.h).
  std::string image_url_hosts;
  // [limits]
  // max_tokens of a chat or text completion that names none (the engine
  // would otherwise generate until the context is full).
  int default_max_tokens = 16384;
  // The longest audio zest converts for speech-to-text (WebM, Opus, M4A...):
  // longer is refused by its header, before it is decoded.
  int max_audio_s = 1800;
  // The most memory the audio of speech-to-text requests (uploaded, or
  // decoded to WAV) may hold at once while it waits for or is in a speech
  // engine: 512 MiB is about nine 30-minute recordings as 16 kHz WAV. A
  // request over it gets 429 with Retry-After. 0: no limit.
  int max_audio_memory_mb = 512;
  // The longest text one /v1/audio/speech request may speak, in characters
  // (OpenAI's limit); longer is a 400.
  int max_speech_chars = 4096;
  // Images in chat requests: how many one request may hold, and each one's
  // size as sent and in pixels as its header declares (a small file can
  // declare a picture the engine would need gigabytes to decode).
  int max_images = 16;
  int max_image_mb = 20;
  int64_t max_image_pixels = 33'554'432;  // 8192 x 4096
  // All of one request's images together: the engine decodes every image
  // of a prompt (3 bytes a pixel) before it reads any.
  int64_t max_request_pixels = 67'108'864;  // two of the largest, ~192 MiB decoded
  // [security]
  // The longest keep_alive an inference key may set; empty = the server's
  // scheduler.keep_alive.
  std::string max_keep_alive;
  // Whether API keys share the engines' prompt caches (one key's request
  // may reuse what another's left in a slot, and learn from cached_tokens
  // how much): for keys that trust each other. Off: each key's own
  // (scheduler/slot_owners.h).
  bool share_prompt_cache = false;
  // [metrics]
  bool metrics_public = false;  // /metrics without a key
  bool metrics_enabled = true;  // false: no /metrics, no per-request accounting

  std::filesystem::path RunDir() const { return home / "run"; }
  // One pid file per running engine (engines/pid_file.h).
  std::filesystem::path EnginePidDir() const { return RunDir() / "engines"; }
  std::filesystem::path LogDir() const { return home / "logs"; }
  std::filesystem::path SlotDir() const { return home / "cache" / "slots"; }
  std::filesystem::path UserModelsFile() const { return home / "user_models.json"; }
  std::filesystem::path KeysFile() const { return home / "keys.json"; }
  std::filesystem::path TlsDir() const { return home / "tls"; }
};

enum class Source { kDefault, kFile, kEnv, kFlag };
const char* SourceName(Source source);

// One row of `zest config`: "server.port = 9378 (env ZEST_PORT)".
struct SettingOrigin {
  std::string key;    // "server.port"
  std::string value;  // rendered value
  Source source = Source::kDefault;
  std::string detail;  // file path, variable or flag name
};

struct LoadInputs {
  // Environment lookup (std::getenv in production, a map in tests).
  std::function<std::optional<std::string>(const std::string&)> getenv;
  // Flags given on the command line, by setting key ("server.port" → "8080").
  std::map<std::string, std::string> flags;
  // Overrides the config file location (default <home>/config.toml).
  std::optional<std::filesystem::path> config_file;
};

struct LoadedSettings {
  Settings settings;
  std::vector<SettingOrigin> origins;  // one per key, in a stable order
};

// kInvalidArgument for a malformed file or value ("server.port: 'x' is not
// a number (env ZEST_PORT)"). A missing config file is not an error.
Result<LoadedSettings> LoadSettings(const LoadInputs& inputs);

// Every setting key with its env variable, for help texts.
std::vector<std::pair<std::string, std::string>> SettingKeys();

// Reads the process environment (for LoadInputs::getenv).
std::optional<std::string> ProcessEnv(const std::string& name);

}  // namespace zest::config
