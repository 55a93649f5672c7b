#include "http/router.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace zest::http {
namespace {

// "/v1/models/x" -> {"v1", "models", "x"}; "/" -> {""}. Empty segments are
// kept so "/a//b" and "/a/b" stay different paths.
std::vector<std::string> SplitPath(std::string_view path) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  std::vector<std::string> segments;
  for (;;) {
    std::size_t slash = path.find('/');
    segments.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool IsCapture(std::string_view segment) {
  return segment.size() >= 3 && segment.front() == '{' && segment.back() == '}';
}

bool IsRestCapture(std::string_view segment) {
  return IsCapture(segment) && segment.size() > 5 && segment.substr(segment.size() - 4) == "...}";
}

// Matches `path` against a pattern's segments, filling `params` on success
// with the captured segments percent-decoded: clients escape a model name
// as a path segment ("org/repo%3AQ8_0").
bool MatchSegments(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
                   std::vector<std::string>& params) {
  params.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const std::string& want = pattern[i];
    if (IsRestCapture(want)) {
      if (i >= path.size()) return false;
      std::string rest = PercentDecode(path[i], false);
      for (std::size_t j = i + 1; j < path.size(); ++j) rest += "/" + PercentDecode(path[j], false);
      if (rest.empty()) return false;
      params.push_back(std::move(rest));
      return true;
    }
    if (i >= path.size()) return false;
    if (IsCapture(want)) {
      if (path[i].empty()) return false;
      params.push_back(PercentDecode(path[i], false));
    } else if (want != path[i]) {
      return false;
    }
  }
  return pattern.size() == path.size();
}

}  // namespace

void Router::Add(std::string method, std::string pattern, Handler handler, BodyKind body) {
  std::vector<std::string> segments = SplitPath(pattern);
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    // A misplaced rest capture is a programming error in route setup.
    if (IsRestCapture(segments[i])) {
      throw std::invalid_argument("{name...} must be the last segment: " + pattern);
    }
  }
  Access access = method == "GET" || method == "HEAD" ? Access::kInference : Access::kAdmin;
  routes_.push_back(Route{std::move(method), std::move(pattern), std::move(segments),
                          std::move(handler), access, body, false});
}

bool Router::SetAccess(std::string_view method, std::string_view pattern, Access access) {
  bool found = false;
  for (Route& route : routes_) {
    if (route.method == method && route.pattern == pattern) {
      route.access = access;
      found = true;
    }
  }
  return found;
}

bool Router::SetLongLived(std::string_view method, std::string_view pattern) {
  bool found = false;
  for (Route& route : routes_) {
    if (route.method == method && route.pattern == pattern) {
      route.long_lived = true;
      found = true;
    }
  }
  return found;
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  const std::vector<std::string> segments = SplitPath(path);
  Match match;
  std::vector<std::string> params;
  for (const Route& route : routes_) {
    if (!MatchSegments(route.segments, segments, params)) continue;
    if (route.method == method) {
      // Registration order decides between overlapping patterns.
      match.kind = MatchKind::kFound;
      match.handler = &route.handler;
      match.access = route.access;
      match.body = route.body;
      match.long_lived = route.long_lived;
      match.params = std::move(params);
      match.allowed.clear();
      return match;
    }
    if (std::find(match.allowed.begin(), match.allowed.end(), route.method) ==
        match.allowed.end()) {
      match.allowed.push_back(route.method);
    }
  }
  if (!match.allowed.empty()) match.kind = MatchKind::kWrongMethod;
  return match;
}

}  // namespace zest::http
