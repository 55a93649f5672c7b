#include "webui/web_ui.h"

#include <nlohmann/json.hpp>

namespace zest::webui {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

// Scripts, styles, images and fetches from this origin only: no inline
// script or style, no eval, no plugins, no framing, no form posts elsewhere.
// Images may be data:/blob: URLs (attachments the user picks, shown before
// sending); audio only blob: URLs (an answer read aloud, fetched first).
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "media-src blob:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

constexpr std::string_view kNotBuiltPage = R"(<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>zest</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<main>
<h1>zest is running</h1>
<p>This zest was built without its web UI: building it needs Node.js and npm.</p>
<p>Install them and build again, then reload this page:</p>
<pre>sudo apt-get install nodejs npm
make build</pre>
<p>The APIs work without the UI: see the README.</p>
</main>
</body>
</html>
)";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

http::Headers SecurityHeaders(std::string_view cache_control) {
  return {{"Cache-Control", std::string(cache_control)},
          {"Content-Security-Policy", std::string(kContentSecurityPolicy)},
          {"X-Content-Type-Options", "nosniff"},
          {"Referrer-Policy", "no-referrer"},
          {"Cross-Origin-Opener-Policy", "same-origin"}};
}

std::string_view AccessWord(const http::Request& request) {
  switch (request.access) {
    case http::Access::kAdmin:
      return "admin";
    case http::Access::kInference:
      return "inference";
    case http::Access::kPublic:
      break;
  }
  return "none";
}

}  // namespace

std::string ContentTypeFor(std::string_view path) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".json", "application/json"},
      {".webmanifest", "application/manifest+json"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [extension, type] : kTypes) {
    if (EndsWith(path, extension)) return std::string(type);
  }
  return "application/octet-stream";
}

bool IsImmutableAsset(std::string_view path) {
  // "assets/index-Bt-IkXGa.css": Vite's [name]-[hash].[ext], the hash 8
  // characters of base64url (so it may hold '-' itself).
  constexpr std::size_t kHash = 8;
  if (!path.starts_with("assets/")) return false;
  std::string_view name = path.substr(7);
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot < kHash + 2 || name[dot - kHash - 1] != '-') {
    return false;
  }
  std::string_view hash = name.substr(dot - kHash, kHash);
  return hash.find_first_not_of(
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") ==
         std::string_view::npos;
}

bool WantsHtml(std::string_view accept) { return accept.find("text/html") != std::string::npos; }

std::optional<EmbeddedFile> WebUi::Find(std::string_view path) const {
  for (const EmbeddedFile& file : files_) {
    if (path == file.path) return file;
  }
  return std::nullopt;
}

awaitable<void> WebUi::Serve(std::string_view path, http::ResponseWriter& w) {
  if (path.empty()) path = "index.html";
  std::optional<EmbeddedFile> file = Find(path);
  if (!file && path == "index.html") {
    http::Headers headers = SecurityHeaders("no-cache");
    co_await w.Send(200, "text/html; charset=utf-8", std::string(kNotBuiltPage), headers);
    co_return;
  }
  if (!file) {
    http::Headers headers = SecurityHeaders("no-cache");
    std::string message = "no file '" + std::string(path) + "' in the web UI";
    co_await w.Send(404, "text/plain; charset=utf-8", std::move(message), headers);
    co_return;
  }
  http::Headers headers =
      SecurityHeaders(IsImmutableAsset(path) ? "public, max-age=31536000, immutable" : "no-cache");
  std::string body(reinterpret_cast<const char*>(file->data), file->size);
  std::string type = ContentTypeFor(path);
  co_await w.Send(200, type, std::move(body), headers);
}

void WebUi::Register(http::Router& router) {
  router.Add("GET", "/", [](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
    if (WantsHtml(r.Header("Accept"))) {
      http::Headers location = {{"Location", std::string(kUiPath)}};
      co_await w.Send(302, "text/plain; charset=utf-8", "the web UI is at /ui/\n", location);
      co_return;
    }
    co_await w.Send(200, "text/plain; charset=utf-8", "Ollama is running");
  });
  router.Add("GET", "/ui", [](http::Request&, http::ResponseWriter& w) -> awaitable<void> {
    http::Headers location = {{"Location", std::string(kUiPath)}};
    co_await w.Send(301, "text/plain; charset=utf-8", "", location);
  });
  router.Add("GET", "/ui/", [this](http::Request&, http::ResponseWriter& w) -> awaitable<void> {
    co_await Serve("", w);
  });
  router.Add("GET", "/ui/{path...}",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               co_await Serve(r.params.at(0), w);
             });
  router.Add(
      "GET", "/api/v1/session", [](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
        nlohmann::json body = {{"keys_required", r.keys_required}, {"access", AccessWord(r)}};
        if (!r.principal.empty()) body["key_name"] = r.principal;
        http::Headers headers = {{"Cache-Control", "no-store"}};
        co_await w.Send(200, "application/json", body.dump(), headers);
      });
}

}  // namespace zest::webui
