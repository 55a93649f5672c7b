#include "api/request/sampling_fields.h"

#include <algorithm>
#include <cmath>

namespace zest::api {
namespace {

using nlohmann::json;

// Ollama's name for each sampler whose name differs from llama-server's.
const char* OllamaName(std::string_view name) { return name == "n_keep" ? "num_keep" : nullptr; }

std::optional<int64_t> Integer(const json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::abs(d) < 9e18) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> Stop(const json& value) {
  if (value.is_string()) return std::vector<std::string>{value.get<std::string>()};
  if (!value.is_array() ||
      !std::all_of(value.begin(), value.end(), [](const json& s) { return s.is_string(); })) {
    return std::nullopt;
  }
  return value.get<std::vector<std::string>>();
}

// OpenAI's fields are quoted in errors ('top_k'), as request_parse does;
// Ollama's options are not (options.top_k), as its own server says them.
Status Bad(const std::string& field, const char* what, std::string* param) {
  if (param != nullptr) *param = field;
  const bool top_level = field.find('.') == std::string::npos;
  return InvalidArgument((top_level ? "'" + field + "'" : field) + " must be " + what);
}

// Each sampler of `object`, named by `name_of`, into `sampling`; `where`
// prefixes the field in errors ("options.").
template <class NameOf>
Status ReadSamplers(const json& object, NameOf name_of, const std::string& where,
                    engines::Sampling& sampling, std::string* param) {
  for (const engines::RealSampler& s : engines::kRealSamplers) {
    const char* name = name_of(s.name);
    auto it = object.find(name);
    if (it == object.end() || it->is_null()) continue;
    if (!it->is_number()) return Bad(where + name, "a number", param);
    sampling.*s.field = it->get<double>();
  }
  for (const engines::IntegerSampler& s : engines::kIntegerSamplers) {
    const char* name = name_of(s.name);
    auto it = object.find(name);
    if (it == object.end() || it->is_null()) continue;
    std::optional<int64_t> value = Integer(*it);
    if (!value) return Bad(where + name, "an integer", param);
    sampling.*s.field = *value;
  }
  if (auto stop = object.find("stop"); stop != object.end() && !stop->is_null()) {
    sampling.stop = Stop(*stop);
    if (!sampling.stop) return Bad(where + "stop", "a string or a list of strings", param);
  }
  return Status::Ok();
}

template <class T>
void Fill(std::optional<T>& value, const std::optional<T>& fallback) {
  if (!value) value = fallback;
}

}  // namespace

Status TakeSampling(json& object, engines::Sampling& sampling, std::string* param) {
  ZEST_RETURN_IF_ERROR(ReadSamplers(
      object, [](const char* name) { return name; }, "", sampling, param));
  for (const engines::RealSampler& s : engines::kRealSamplers) object.erase(s.name);
  for (const engines::IntegerSampler& s : engines::kIntegerSamplers) object.erase(s.name);
  object.erase("stop");
  return Status::Ok();
}

Status ReadOllamaOptions(const json& options, engines::Sampling& sampling,
                         std::optional<int64_t>& max_tokens) {
  if (options.is_null()) return Status::Ok();
  if (!options.is_object()) return InvalidArgument("options must be an object");
  auto name_of = [](const char* name) {
    const char* ollama = OllamaName(name);
    return ollama != nullptr ? ollama : name;
  };
  std::string ignored;
  ZEST_RETURN_IF_ERROR(ReadSamplers(options, name_of, "options.", sampling, &ignored));
  if (auto n = options.find("num_predict"); n != options.end() && !n->is_null()) {
    if (!n->is_number_integer()) return InvalidArgument("options.num_predict must be an integer");
    // -1 (endless) and -2 (fill the context): zest's limit.
    if (n->get<int64_t>() >= 0) max_tokens = n->get<int64_t>();
  }
  return Status::Ok();
}

void FillSampling(engines::Sampling& sampling, const engines::Sampling& defaults) {
  for (const engines::RealSampler& s : engines::kRealSamplers) {
    Fill(sampling.*s.field, defaults.*s.field);
  }
  for (const engines::IntegerSampler& s : engines::kIntegerSamplers) {
    Fill(sampling.*s.field, defaults.*s.field);
  }
  Fill(sampling.stop, defaults.stop);
}

}  // namespace zest::api
