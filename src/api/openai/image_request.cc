#include "api/openai/image_request.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace zest::api::openai {
namespace {

using nlohmann::json;

// "WxH" → width and height, each a multiple of 8 within the bounds.
Status ParseSize(const std::string& size, engines::ImageJob& job) {
  auto bad = [] {
    return InvalidArgument(
        "size must be \"auto\" or WIDTHxHEIGHT (e.g. 512x512), each a "
        "multiple of 8 from " +
        std::to_string(kMinImageSide) + " to " + std::to_string(kMaxImageSide));
  };
  if (size == "auto") return Status::Ok();
  const std::size_t x = size.find('x');
  if (x == std::string::npos) return bad();
  auto number = [](std::string_view text, int& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
  };
  int width = 0;
  int height = 0;
  if (!number(std::string_view(size).substr(0, x), width) ||
      !number(std::string_view(size).substr(x + 1), height)) {
    return bad();
  }
  for (int side : {width, height}) {
    if (side < kMinImageSide || side > kMaxImageSide || side % 8 != 0) return bad();
  }
  job.width = width;
  job.height = height;
  return Status::Ok();
}

// The string field `name`, or `fallback` when absent; an error when it is
// there but not a string.
Result<std::string> StringField(const json& j, const char* name, std::string fallback = "") {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) return InvalidArgument(std::string(name) + " must be a string");
  return it->get<std::string>();
}

Status ParseFields(const json& j, ImageRequest& out, std::string* param) {
  *param = "model";
  ZEST_ASSIGN_OR_RETURN(out.model, StringField(j, "model"));
  if (out.model.empty()) return InvalidArgument("`model` is required");
  *param = "prompt";
  ZEST_ASSIGN_OR_RETURN(out.job.prompt, StringField(j, "prompt"));
  if (out.job.prompt.empty()) return InvalidArgument("`prompt` is required");
  if (out.job.prompt.size() > kMaxImagePromptChars) {
    return InvalidArgument("prompt is over " + std::to_string(kMaxImagePromptChars) +
                           " characters");
  }
  *param = "n";
  if (auto n = j.find("n"); n != j.end() && !n->is_null()) {
    if (!n->is_number_integer() || *n < 1 || *n > kMaxImagesPerRequest) {
      return InvalidArgument("n must be an integer from 1 to " +
                             std::to_string(kMaxImagesPerRequest));
    }
    out.job.n = n->get<int>();
  }
  *param = "size";
  ZEST_ASSIGN_OR_RETURN(std::string size, StringField(j, "size", "auto"));
  ZEST_RETURN_IF_ERROR(ParseSize(size, out.job));
  *param = "response_format";
  ZEST_ASSIGN_OR_RETURN(std::string response_format, StringField(j, "response_format", "b64_json"));
  if (response_format != "b64_json") {
    return InvalidArgument(
        "response_format must be b64_json: zest returns images inline and hosts no URLs");
  }
  *param = "output_format";
  ZEST_ASSIGN_OR_RETURN(out.output_format, StringField(j, "output_format", "png"));
  if (out.output_format != "png" && out.output_format != "jpeg" && out.output_format != "webp") {
    return InvalidArgument("output_format must be png, jpeg or webp");
  }
  *param = "output_compression";
  if (auto c = j.find("output_compression"); c != j.end() && !c->is_null()) {
    if (!c->is_number_integer() || *c < 0 || *c > 100) {
      return InvalidArgument("output_compression must be an integer from 0 to 100");
    }
    out.output_compression = c->get<int>();
  }
  *param = "background";
  ZEST_ASSIGN_OR_RETURN(std::string background, StringField(j, "background", "auto"));
  if (background == "transparent") {
    return InvalidArgument("transparent backgrounds are not supported; use auto or opaque");
  }
  *param = "stream";
  if (auto stream = j.find("stream"); stream != j.end() && *stream == true) {
    return InvalidArgument("streamed image generation is not supported; send stream=false");
  }
  *param = "priority";
  ZEST_ASSIGN_OR_RETURN(out.priority, StringField(j, "priority"));
  param->clear();
  return Status::Ok();
}

}  // namespace

Result<ImageRequest> ParseImageRequest(std::string_view body, std::string* param) {
  param->clear();
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("the body is not valid JSON");
  if (!j.is_object()) return InvalidArgument("the body must be a JSON object");
  ImageRequest out;
  ZEST_RETURN_IF_ERROR(ParseFields(j, out, param));
  return out;
}

}  // namespace zest::api::openai
