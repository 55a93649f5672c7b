// TopView: renders one frame of `zest top` from the server's JSON (system
// info, running instances, stats) as lines that fit a terminal of the given
// size. Pure, so frames are unit-tested without a terminal or server.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace zest::cli {

// NOLINTNEXTLINE(bugprone-exception-escape): json members; nothing here throws once built
struct TopInput {
  std::string server;                       // the URL shown in the title
  std::string clock;                        // "15:30:40"
  nlohmann::json system;                    // GET /api/v1/system-info
  nlohmann::json instances;                 // GET /api/v1/ps ["instances"]
  nlohmann::json stats;                     // GET /api/v1/stats
  std::optional<double> tokens_per_second;  // generated, over the last refresh
};

// At most `height` lines, none wider than `width` columns.
std::vector<std::string> RenderTop(const TopInput& input, int width, int height);

// "[#####.....]" with `cells` cells for `fraction` in [0, 1].
std::string Bar(double fraction, int cells);

}  // namespace zest::cli
