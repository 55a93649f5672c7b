#include "api/chat_images.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "api/request/image_probe.h"
#include "core/base64.h"
#include "core/strings.h"
#include "http/url_host.h"
#include "models/http_fetch.h"

namespace zest::api {

namespace {

using engines::ContentPart;

std::string Megabytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MB"; }

// ffmpeg's demuxer for a format zest converts.
std::string Demuxer(ImageHeader::Format format) {
  switch (format) {
    case ImageHeader::Format::kWebp:
      return "webp_pipe";
    case ImageHeader::Format::kTiff:
      return "tiff_pipe";
    default:
      return "mov";  // HEIF and AVIF are ISO media files
  }
}

}  // namespace

int CountImages(const engines::ChatRequest& request) {
  int count = 0;
  for (const engines::Message& m : request.messages) {
    for (const ContentPart& p : m.parts) count += p.type == ContentPart::Type::kImage ? 1 : 0;
  }
  return count;
}

Status CheckVision(const models::ModelEntry& model, const engines::ChatRequest& request) {
  const bool paired = !model.mmproj.empty();
  if (CountImages(request) > 0 && !(paired && model.projector.has_vision)) {
    return InvalidArgument(
        "model '" + model.name + "' has no vision: " +
        (paired ? "its projector has no image encoder"
                : "no projector (mmproj) is paired with it, so it cannot read images; use a "
                  "vision model, or pair one (`zest add NAME MODEL.gguf --mmproj MMPROJ.gguf`)"));
  }
  // OpenAI's input_audio parts pass to the engine as they came (libmtmd
  // reads WAV and MP3) when the projector has an audio encoder.
  bool audio = false;
  for (const engines::Message& m : request.messages) {
    for (const ContentPart& p : m.parts) {
      if (p.type != ContentPart::Type::kOther || !p.extra.is_object()) continue;
      auto type = p.extra.find("type");  // a client's part: "type" may be anything
      audio = audio || (type != p.extra.end() && *type == "input_audio");
    }
  }
  if (audio && !(paired && model.projector.has_audio)) {
    return InvalidArgument("model '" + model.name + "' takes no audio input: " +
                           (paired
                                ? "its projector has no audio encoder"
                                : "no projector (mmproj) with an audio encoder is paired with it") +
                           "; use /v1/audio/transcriptions with a speech model");
  }
  return Status::Ok();
}

boost::asio::awaitable<Status> ChatImages::Prepare(engines::ChatRequest& request,
                                                   const engines::ImageConverter* converter,
                                                   std::string* param) const {
  const int count = CountImages(request);
  if (count == 0) co_return Status::Ok();
  *param = "messages";
  if (count > limits_.max_images) {
    co_return InvalidArgument("the request holds " + std::to_string(count) + " images; at most " +
                              std::to_string(limits_.max_images) +
                              " are allowed (limits.max_images)");
  }
  int index = 0;
  uint64_t pixels = 0;
  for (engines::Message& m : request.messages) {
    for (ContentPart& p : m.parts) {
      if (p.type != ContentPart::Type::kImage) continue;
      ++index;
      Result<uint64_t> ready = co_await PrepareOne(p, index, converter);
      if (!ready.ok()) co_return ready.status();
      pixels += *ready;
      if (pixels > limits_.max_request_pixels) {
        co_return Status(ErrorCode::kTooLarge,
                         "images 1 to " + std::to_string(index) + " hold " +
                             std::to_string(pixels) + " pixels together; at most " +
                             std::to_string(limits_.max_request_pixels) +
                             " are allowed in one request (limits.max_request_pixels)");
      }
    }
  }
  co_return Status::Ok();
}

boost::asio::awaitable<Result<uint64_t>> ChatImages::PrepareOne(
    ContentPart& part, int index, const engines::ImageConverter* converter) const {
  const std::string where = "image " + std::to_string(index);
  Result<std::string> read = co_await ReadBytes(part.url, where);
  if (!read.ok()) co_return read.status();
  std::string bytes = std::move(*read);
  if (bytes.size() > limits_.max_image_bytes) co_return OverBytes(where);

  ImageHeader header = ProbeImage(bytes);
  if (!header.EngineReads() && !header.Convertible()) {
    co_return InvalidArgument(where +
                              " is not an image zest reads: send PNG, JPEG, GIF, BMP, WebP, TIFF, "
                              "HEIF or AVIF");
  }
  if (Status fits = CheckPixels(header, where); !fits.ok()) co_return fits;
  const bool converted = header.Convertible();
  if (converted) {
    Result<std::string> png = co_await ToPng(std::move(bytes), header, where, converter);
    if (!png.ok()) co_return png.status();
    bytes = std::move(*png);
    header = ProbeImage(bytes);
    if (Status fits = CheckPixels(header, where); !fits.ok()) co_return fits;
  }
  std::string prefix = "data:" + header.Mime() + ";base64,";
  // A data: URL the engine reads as it is (its own format's MIME type, strict
  // base64 just decoded) goes on unchanged: re-encoding 20 MB costs time.
  if (part.url.starts_with("data:") && !converted && part.url.starts_with(prefix)) {
    co_return header.Pixels();
  }
  part.url = std::move(prefix) + Base64Encode(bytes);
  co_return header.Pixels();
}

boost::asio::awaitable<Result<std::string>> ChatImages::ReadBytes(const std::string& url,
                                                                  const std::string& where) const {
  if (url.starts_with("data:")) co_return DecodeDataUrl(url, where);
  if (!url.starts_with("https://") && !url.starts_with("http://")) {
    co_return InvalidArgument(where + ": an image URL must be a data: URL or an http(s) URL");
  }
  const std::string host = http::UrlHost(url);
  if (!HostAllowed(host)) {
    co_return InvalidArgument(
        where + ": zest does not fetch images from " + (host.empty() ? "that URL" : host) +
        "; send the image's bytes as a data: URL (base64), or allow the host in "
        "server.image_url_hosts");
  }
  co_return co_await FetchAsync(url, where);
}

bool ChatImages::HostAllowed(const std::string& host) const {
  if (host.empty()) return false;
  if (std::find(limits_.url_hosts.begin(), limits_.url_hosts.end(), host) !=
      limits_.url_hosts.end()) {
    return true;
  }
  // An address in the URL: allowed when a listed range holds it.
  std::string literal = host;
  if (literal.starts_with('[') && literal.ends_with(']'))
    literal = literal.substr(1, literal.size() - 2);
  boost::system::error_code ec;
  const boost::asio::ip::address address = boost::asio::ip::make_address(literal, ec);
  return !ec && Listed(address);
}

bool ChatImages::AddressAllowed(const sockaddr* address) const {
  std::optional<boost::asio::ip::address> a = http::AddressOf(address);
  return a && (http::IsGloballyReachable(*a) || Listed(*a));
}

bool ChatImages::Listed(const boost::asio::ip::address& address) const {
  return std::any_of(limits_.url_networks.begin(), limits_.url_networks.end(),
                     [&](const http::IpNetwork& n) { return n.Contains(address); });
}

Result<std::string> ChatImages::DecodeDataUrl(std::string_view url,
                                              const std::string& where) const {
  // data:[<mime>][;base64],<bytes>: only base64, as every API sends it.
  size_t comma = url.find(',');
  if (comma == std::string_view::npos ||
      url.substr(0, comma).find(";base64") == std::string_view::npos) {
    return InvalidArgument(where + ": a data: URL must hold base64 (data:image/png;base64,...)");
  }
  // Base64 is 4/3 of the bytes: refused before it is decoded.
  if ((url.size() - comma - 1) / 4 * 3 > limits_.max_image_bytes + 2) return OverBytes(where);
  std::optional<std::string> decoded = Base64Decode(url.substr(comma + 1));
  if (!decoded) return InvalidArgument(where + ": its data: URL is not valid base64");
  return std::move(*decoded);
}

boost::asio::awaitable<Result<std::string>> ChatImages::ToPng(
    std::string bytes, const ImageHeader& header, const std::string& where,
    const engines::ImageConverter* converter) const {
  if (converter == nullptr) {
    co_return InvalidArgument(where + " is " + header.Name() +
                              ", which needs ffmpeg to convert; send PNG, JPEG, GIF or BMP");
  }
  Result<std::string> png =
      co_await converter->ToPng(std::move(bytes), Demuxer(header.format), limits_.max_image_pixels);
  if (png.ok()) co_return png;
  spdlog::info("{} ({}) could not be converted: {}", where, header.Name(), png.status().message());
  if (png.status().code() == ErrorCode::kInvalidArgument) {
    co_return InvalidArgument(where + ": ffmpeg could not read it as " + header.Name() +
                              ", or it is over " + std::to_string(limits_.max_image_pixels) +
                              " pixels (limits.max_image_pixels)");
  }
  co_return png.status();
}

Status ChatImages::CheckPixels(const ImageHeader& header, const std::string& where) const {
  // Fail closed: a format the engine decodes itself must say its size
  // before it is decoded (a header cut short, or one the probe cannot walk,
  // would pass as 0 x 0). What zest converts may not say (TIFF, HEIF,
  // AVIF): ffmpeg decodes it under -max_pixels, and its PNG is checked here.
  if (header.EngineReads() && header.Pixels() == 0) {
    return InvalidArgument(where + " is " + header.Name() +
                           " whose header gives no size in pixels: zest does not pass on an "
                           "image it cannot measure");
  }
  if (header.Pixels() <= limits_.max_image_pixels) return Status::Ok();
  return Status(ErrorCode::kTooLarge, where + " is " + std::to_string(header.width) + " x " +
                                          std::to_string(header.height) + " pixels; at most " +
                                          std::to_string(limits_.max_image_pixels) +
                                          " are allowed (limits.max_image_pixels)");
}

Status ChatImages::OverBytes(const std::string& where) const {
  return Status(ErrorCode::kTooLarge, where + " is over " + Megabytes(limits_.max_image_bytes) +
                                          " (limits.max_image_mb)");
}

Result<std::string> ChatImages::Fetch(const std::string& url, const std::string& where) const {
  std::string body;
  bool too_large = false;
  models::HttpGetOptions options;
  options.connect_timeout_s = 10;
  options.stall_timeout_s = 10;
  // A redirect could lead to a host that is not allowed.
  options.follow_redirects = false;
  std::string refused;
  options.allow_connect = [&](const sockaddr* address) {
    if (AddressAllowed(address)) return true;
    std::optional<boost::asio::ip::address> a = http::AddressOf(address);
    refused = a ? a->to_string() : "an address of another family";
    return false;
  };
  options.sink = [&](long, std::string_view chunk) {
    if (body.size() + chunk.size() > limits_.max_image_bytes) {
      too_large = true;
      return false;
    }
    body.append(chunk);
    return true;
  };
  models::HttpGetResult got = models::HttpGet(url, options);
  if (too_large) return OverBytes(where);
  if (!got.transport_ok && !refused.empty()) {
    return InvalidArgument(where + ": " + http::UrlHost(url) + " resolves to " + refused +
                           ", which is not a public address: zest fetches images from this "
                           "machine or its network only from addresses listed in "
                           "server.image_url_hosts (e.g. \"192.168.1.0/24\")");
  }
  if (!got.transport_ok) {
    return InvalidArgument(where + ": fetching " + url +
                           " failed: " + (got.timed_out ? "it timed out" : got.transport_error));
  }
  if (got.status != 200) {
    return InvalidArgument(where + ": fetching " + url + " answered HTTP " +
                           std::to_string(got.status));
  }
  return body;
}

boost::asio::awaitable<Result<std::string>> ChatImages::FetchAsync(std::string url,
                                                                   std::string where) const {
  // A member coroutine, not a capturing lambda: GCC 12 miscompiles those
  // (the captures are destroyed twice).
  co_return co_await boost::asio::co_spawn(fetchers_, FetchOnPool(std::move(url), std::move(where)),
                                           boost::asio::use_awaitable);
}

boost::asio::awaitable<Result<std::string>> ChatImages::FetchOnPool(std::string url,
                                                                    std::string where) const {
  co_return Fetch(url, where);
}

}  // namespace zest::api
