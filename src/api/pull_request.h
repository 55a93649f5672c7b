// What a pull route of any API asks for (api/pull_route.h), once its body
// is read.
#pragma once

#include <string>

namespace zest::api {

struct PullRequest {
  std::string model;  // what to pull (a catalog name, org/repo:QUANT...)
  bool stream = true;
};

}  // namespace zest::api
