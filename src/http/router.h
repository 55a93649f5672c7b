// Router: maps (method, path) to a handler. Patterns are literal segments
// plus `{name}` (one segment) or a final `{name...}` (the rest of the path,
// slashes included: model ids such as "org/model" contain them).
// Each route has an Access level (see api_keys.h): by default GET/HEAD
// routes need an inference key and every other method an admin key, so a
// new mutating route is never open by accident; SetAccess() changes it.
// Each route also says what its bodies are: JSON unless stated, so the
// gateway checks every body's nesting (ServerOptions::max_json_depth)
// before any handler parses it, on every route alike.
// Configure before the server starts; read-only (so thread-safe) afterwards.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <string>
#include <vector>

#include "http/api_keys.h"
#include "http/request.h"
#include "http/response_writer.h"

namespace zest::http {

using Handler = std::function<boost::asio::awaitable<void>(Request&, ResponseWriter&)>;

// Renders an error the server itself produces (404 no route, 405 wrong
// method, 413 body too large, 400 unparsable HTTP, 500 handler threw) in
// the API's own error format. Returns the body; content type is JSON.
using ErrorRenderer = std::function<std::string(int status, const std::string& message)>;

enum class BodyKind { kJson, kOther };

class Router {
 public:
  void Add(std::string method, std::string pattern, Handler handler,
           BodyKind body = BodyKind::kJson);
  // Sets the access level of the route added with exactly this method and
  // pattern; false when there is none.
  bool SetAccess(std::string_view method, std::string_view pattern, Access access);
  // Marks the route as a long-lived stream (an event stream, a log
  // followed): its connections count against an address's stream limit,
  // not its connection limit (connection_registry.h); false when there is
  // no such route.
  bool SetLongLived(std::string_view method, std::string_view pattern);

  enum class MatchKind { kFound, kNoRoute, kWrongMethod };
  struct Match {
    MatchKind kind = MatchKind::kNoRoute;
    const Handler* handler = nullptr;  // set when kFound
    std::vector<std::string> params;   // captures, in pattern order
    std::vector<std::string> allowed;  // methods for the path when kWrongMethod
    Access access = Access::kAdmin;    // set when kFound
    BodyKind body = BodyKind::kJson;   // set when kFound
    bool long_lived = false;           // set when kFound
  };
  Match Find(std::string_view method, std::string_view path) const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;
    Handler handler;
    Access access = Access::kAdmin;
    BodyKind body = BodyKind::kJson;
    bool long_lived = false;
  };
  std::vector<Route> routes_;
};

}  // namespace zest::http
