// Ollama's view of zest's models, for the read-only part of Ollama's API
// (ollama_api.h): names as Ollama clients send them (`name:tag`, where a
// name without a tag means `:latest`), and the model objects of /api/tags,
// /api/ps and /api/show. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "models/model_registry.h"
#include "scheduler/instance_directory.h"

namespace zest::api::ollama {

// The Ollama release whose API zest follows (GET /api/version): clients
// gate features (tools, thinking) on it.
inline constexpr const char* kOllamaApiVersion = "0.12.0";

// A zest model name as Ollama clients see it: "qwen3-8b" → "qwen3-8b:latest";
// names that carry a tag already ("org/repo:Q4_K_M") stay as they are.
std::string OllamaName(const std::string& zest_name);
// What an Ollama client sent, as a zest name: a trailing ":latest" goes.
std::string ZestName(std::string_view ollama_name);

// "4.3B", "596.0M": Ollama's parameter_size.
std::string ParameterSize(uint64_t parameters);

// `details`: format, family, families, parameter_size, quantization_level.
nlohmann::json Details(const models::ModelEntry& model);
// A stable identity of the model's file (sha256 of its path, size and
// mtime, hex), as Ollama's `digest`: zest does not hash gigabytes to list
// them, so it changes when the file does, not only when its bytes do.
std::string Digest(const models::ModelEntry& model);
// Seconds since the epoch as RFC 3339 in UTC ("2026-12-04T17:58:31Z").
std::string Rfc3339(int64_t seconds);

// One model of GET /api/tags.
nlohmann::json TagsEntry(const models::ModelEntry& model);
// One model of GET /api/ps: its instance's memory (`size`; `size_vram`: on
// GPUs and the NPU), context per request and when keep-alive unloads it
// (`expires_at`, seconds since the epoch; nullopt: not while busy, or never).
nlohmann::json PsEntry(const models::ModelEntry& model, const scheduler::InstanceStatus& instance,
                       std::optional<int64_t> expires_at);
// POST /api/show: details, capabilities, model_info (the file's metadata,
// from `/api/v1/show`'s `metadata`), the chat template, modified_at.
nlohmann::json ShowJson(const models::ModelEntry& model, const nlohmann::json& metadata);

}  // namespace zest::api::ollama
