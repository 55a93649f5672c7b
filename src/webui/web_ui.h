// WebUi: the browser UI (ui/, embedded at build time) and the two routes it
// needs that no API has:
//   GET /              a browser (Accept: text/html) is sent to /ui/; every
//                      other client gets Ollama's "Ollama is running", which
//                      Ollama clients probe to find a server;
//   GET /ui/, /ui/...  the UI's files from the binary: index.html never
//                      cached, hashed assets cached for good; a strict
//                      Content-Security-Policy on every answer;
//   GET /api/v1/session what the presented key may do, without needing one:
//                      {"keys_required", "access": "admin"|"inference"|"none"}
//                      (the page asks for a key, and hides admin pages).
// The files come from a fixed table (embedded_files.h): a path that is not
// in it is 404, so no request reaches the file system.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "http/router.h"
#include "webui/embedded_files.h"

namespace zest::webui {

// Where the UI lives.
inline constexpr std::string_view kUiPath = "/ui/";

// The Content-Type for a file name, by its extension. Pure.
std::string ContentTypeFor(std::string_view path);
// Vite's hashed asset names ("assets/NAME-HASH.EXT") never change content:
// they may be cached for good; anything else must be revalidated. Pure.
bool IsImmutableAsset(std::string_view path);
// Whether `accept` (a request's Accept header) asks for a page: a browser
// navigating, not an API client. Pure.
bool WantsHtml(std::string_view accept);

class WebUi {
 public:
  WebUi() : files_(EmbeddedUiFiles()) {}
  // For tests: serve `files` instead of the embedded ones.
  explicit WebUi(std::span<const EmbeddedFile> files) : files_(files) {}

  void Register(http::Router& router);

 private:
  std::optional<EmbeddedFile> Find(std::string_view path) const;
  boost::asio::awaitable<void> Serve(std::string_view path, http::ResponseWriter& writer);

  const std::span<const EmbeddedFile> files_;
};

}  // namespace zest::webui
