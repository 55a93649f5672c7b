// ChatImages: the images a chat request carries (OpenAI image_url parts,
// Responses input_image, Anthropic image blocks, Ollama `images`: all of
// them ContentPart::kImage once parsed), checked and made ready for a
// vision engine before the request is admitted:
//   - the model must have a projector (mmproj) to see them: 400 otherwise;
//   - at most `max_images` per request, each at most `max_image_bytes` as
//     sent and `max_image_pixels` as its header declares (a small file can
//     declare a huge picture, which the engine would allocate to decode),
//     and `max_request_pixels` all together (the engine decodes every
//     image of a prompt before it reads any);
//   - PNG, JPEG, GIF and BMP go to the engine as they are; WebP, TIFF, HEIF
//     and AVIF are converted to PNG in the sandboxed converter
//     (engines/image_converter.h); anything else is refused;
//   - an http(s) URL is fetched by zest, never by the engine, and only from
//     a host in `url_hosts` (server.image_url_hosts; none by default):
//     otherwise the client is told to send the bytes. The address zest
//     connects to must be globally reachable or in `url_networks` (the
//     entries of server.image_url_hosts written as addresses), so that an
//     allowed name pointed at this machine or its network (DNS rebinding)
//     reaches nothing there.
// Every image then reaches the engine as a data: URL with its bytes.
//
// Thread-safe; fetches run on its own threads.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/request/image_probe.h"
#include "core/result.h"
#include "engines/chat_request.h"
#include "engines/image_converter.h"
#include "http/ip_network.h"
#include "models/model_registry.h"

namespace zest::api {

struct ImageLimits {
  int max_images = 16;                     // per request (limits.max_images)
  uint64_t max_image_bytes = 20ull << 20;  // each, as sent (limits.max_image_mb)
  uint64_t max_image_pixels = 33'554'432;  // width × height (limits.max_image_pixels)
  // All of a request's images together (limits.max_request_pixels).
  uint64_t max_request_pixels = 67'108'864;
  std::vector<std::string> url_hosts;  // host names zest fetches images from, lower case
  // Addresses and ranges zest fetches from, by URL or by an allowed name
  // that resolves there; other addresses only when globally reachable.
  std::vector<http::IpNetwork> url_networks;
};

// The images in `request`'s messages.
int CountImages(const engines::ChatRequest& request);

// kInvalidArgument when `request` holds images (or input_audio parts) and
// `model` has no projector with an image (audio) encoder.
Status CheckVision(const models::ModelEntry& model, const engines::ChatRequest& request);

class ChatImages {
 public:
  explicit ChatImages(ImageLimits limits) : limits_(std::move(limits)) {}
  ~ChatImages() { fetchers_.join(); }
  ChatImages(const ChatImages&) = delete;
  ChatImages& operator=(const ChatImages&) = delete;

  const ImageLimits& limits() const { return limits_; }

  // Each image of `request` checked, fetched or converted as above and
  // rewritten as a data: URL. kInvalidArgument (`*param` = "messages") or
  // kTooLarge naming the image at fault ("image 2 ..."); the converter's
  // errors when it cannot run. `converter` may be null (no conversions).
  boost::asio::awaitable<Status> Prepare(engines::ChatRequest& request,
                                         const engines::ImageConverter* converter,
                                         std::string* param) const;

 private:
  // The image's pixels once ready.
  boost::asio::awaitable<Result<uint64_t>> PrepareOne(
      engines::ContentPart& part, int index, const engines::ImageConverter* converter) const;
  // Whether the URL's host is allowed, by name or as an address in range.
  bool HostAllowed(const std::string& host) const;
  // Whether zest may connect to `address` for an image.
  bool AddressAllowed(const sockaddr* address) const;
  // Whether an entry of server.image_url_hosts written as an address holds it.
  bool Listed(const boost::asio::ip::address& address) const;
  // The image's bytes, from its data: URL or an allowed http(s) URL.
  boost::asio::awaitable<Result<std::string>> ReadBytes(const std::string& url,
                                                        const std::string& where) const;
  Result<std::string> DecodeDataUrl(std::string_view url, const std::string& where) const;
  // WebP, TIFF, HEIF or AVIF as PNG, by the sandboxed converter.
  boost::asio::awaitable<Result<std::string>> ToPng(std::string bytes, const ImageHeader& header,
                                                    const std::string& where,
                                                    const engines::ImageConverter* converter) const;
  Status CheckPixels(const ImageHeader& header, const std::string& where) const;
  // kTooLarge: over limits.max_image_mb.
  Status OverBytes(const std::string& where) const;
  // The bytes at an allowed http(s) URL (blocking; on fetchers_).
  Result<std::string> Fetch(const std::string& url, const std::string& where) const;
  boost::asio::awaitable<Result<std::string>> FetchAsync(std::string url, std::string where) const;
  boost::asio::awaitable<Result<std::string>> FetchOnPool(std::string url, std::string where) const;

  const ImageLimits limits_;
  mutable boost::asio::thread_pool fetchers_{2};
};

}  // namespace zest::api
