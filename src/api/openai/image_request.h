// Validation of OpenAI image generation requests (POST
// /v1/images/generations): the JSON body becomes an engine-neutral ImageJob
// (engines/image_generation.h), or a 400 naming the bad field. zest returns
// images inline, so `response_format` is `b64_json` or absent (`url` would
// need zest to host the files).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/image_generation.h"

namespace zest::api::openai {

// OpenAI's own bounds: up to 10 images a request, a prompt of 32,000
// characters at most. Sizes: multiples of 8 (the VAE's downscale) from 64
// to 2048 pixels a side.
inline constexpr int kMaxImagesPerRequest = 10;
inline constexpr std::size_t kMaxImagePromptChars = 32000;
inline constexpr int kMinImageSide = 64;
inline constexpr int kMaxImageSide = 2048;

struct ImageRequest {
  std::string model;
  std::string priority;   // the body's `priority` ("high"/"normal"/"low"), or ""
  engines::ImageJob job;  // what the engine is asked for (PNG)
  // What the client gets: png as the engine makes it, or jpeg/webp made
  // from it by zest (engines/image_converter.h) at output_compression.
  std::string output_format = "png";
  std::optional<int> output_compression;  // 0-100
};

// kInvalidArgument for malformed JSON, a missing `model` or `prompt`, an `n`
// out of 1..10, a `size` that is not "auto" or WxH within the bounds, a
// `response_format` other than b64_json, an `output_format` other than
// png/jpeg/webp, an `output_compression` out of 0..100, a transparent
// `background`, or `stream`. The bad field's name goes to `*param`.
Result<ImageRequest> ParseImageRequest(std::string_view body, std::string* param);

}  // namespace zest::api::openai
