// Router: maps (method, path) to a handler. Patterns are literal segments
// plus `{name}` (one segment) or a final `{name...}` (the rest of the path,
// slashes included: model ids such as "org/model" contain them).
// Configure before the server starts; read-only (so thread-safe) afterwards.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <string>
#include <vector>

#include "http/request.h"
#include "http/response_writer.h"

namespace zest::http {

using Handler = std::function<boost::asio::awaitable<void>(Request&, ResponseWriter&)>;

// Renders an error the server itself produces (404 no route, 405 wrong
// method, 413 body too large, 400 unparsable HTTP, 500 handler threw) in
// the API's own error format. Returns the body; content type is JSON.
using ErrorRenderer = std::function<std::string(int status, const std::string& message)>;

class Router {
 public:
  void Add(std::string method, std::string pattern, Handler handler);

  enum class MatchKind { kFound, kNoRoute, kWrongMethod };
  struct Match {
    MatchKind kind = MatchKind::kNoRoute;
    const Handler* handler = nullptr;   // set when kFound
    std::vector<std::string> params;    // captures, in pattern order
    std::vector<std::string> allowed;   // methods for the path when kWrongMethod
  };
  Match Find(std::string_view method, std::string_view path) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace zest::http
