#include "cli/top_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cli/json_fields.h"
#include "cli/table.h"

namespace zest::cli {
namespace {

using nlohmann::json;

bool Has(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number();
}

std::string Fit(std::string text, std::size_t width) {
  if (text.size() > width) text.resize(width);
  return text;
}

std::string Duration(double seconds) {
  long s = std::lround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string DeviceLine(const std::string& label, const std::string& name,
                       std::optional<double> busy, double used, double total) {
  std::string util =
      busy ? fmt::format("{} {:3.0f}%", Bar(*busy / 100, 10), *busy) : "     -          ";
  std::string mem = total > 0 ? fmt::format("{} {}/{}", Bar(used / total, 10),
                                            HumanBytes(uint64_t(used)), HumanBytes(uint64_t(total)))
                              : "";
  return fmt::format(" {:<5} {:<14.14} {}  {}", label, name, util, mem);
}

void Devices(const TopInput& in, std::vector<std::string>& out) {
  const json& u = in.system.value("utilisation", json::object());
  std::optional<double> cpu;
  if (Has(u, "cpu_percent")) cpu = NumberField(u, "cpu_percent");
  out.push_back("DEVICES       UTILISATION            MEMORY");
  out.push_back(DeviceLine("cpu", TextField(in.system.value("cpu", json::object()), "model"), cpu,
                           NumberField(u, "ram_used_bytes"), NumberField(u, "ram_total_bytes")));
  const json& gpus = in.system.value("gpus", json::array());
  const json& live = u.value("gpus", json::array());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const json& g = gpus[i];
    const json& l = i < live.size() ? live[i] : json::object();
    std::optional<double> busy;
    if (Has(l, "busy_percent")) busy = NumberField(l, "busy_percent");
    out.push_back(
        DeviceLine(fmt::format("gpu{}", i), TextField(g, "name"), busy,
                   NumberField(l, "vram_used_bytes") + NumberField(l, "gtt_used_bytes"),
                   NumberField(g, "vram_total_bytes") + NumberField(g, "gtt_total_bytes")));
  }
  const json& npus = in.system.value("npus", json::array());
  const json& npu_live = u.value("npus", json::array());
  for (std::size_t i = 0; i < npus.size(); ++i) {
    std::string state = i < npu_live.size() ? TextField(npu_live[i], "power_state") : "";
    out.push_back(fmt::format(" {:<5} {:<14.14} {}", fmt::format("npu{}", i),
                              TextField(npus[i], "name"), state.empty() ? "-" : state));
  }
}

// Instances with their slots and queues, one line per model.
void Models(const TopInput& in, std::vector<std::string>& out, std::size_t room) {
  out.push_back(" MODEL                     STATE     PID  UPTIME  SLOTS  QUEUE high/norm/low");
  std::map<std::string, json> queues;
  for (const json& q : in.stats.value("queues", json::array())) queues[TextField(q, "model")] = q;
  const json& instances = in.instances.is_array() ? in.instances : json::array();
  std::size_t shown = 0;
  for (const json& i : instances) {
    if (shown + 1 >= room && instances.size() > room) {
      out.push_back(fmt::format(" ... {} more", instances.size() - shown));
      return;
    }
    const json& q = queues[TextField(i, "model")];
    const json& w = q.value("waiting", json::object());
    std::string slots = q.is_object() && !q.empty()
                            ? fmt::format("{}/{}", q.value("busy", 0), q.value("slots", 0))
                            : "-";
    out.push_back(fmt::format(" {:<25.25} {:<7} {:>6} {:>7} {:>6}  {}/{}/{}", TextField(i, "model"),
                              TextField(i, "state"), i.value("pid", 0),
                              Duration(NumberField(i, "uptime_s")), slots, w.value("high", 0),
                              w.value("normal", 0), w.value("low", 0)));
    ++shown;
  }
  if (instances.empty()) out.push_back(" (no model loaded)");
}

std::string Throughput(const TopInput& in) {
  std::string rate = in.tokens_per_second ? fmt::format("{:.1f}", *in.tokens_per_second) : "-";
  return fmt::format(
      "THROUGHPUT {} tok/s generated, {} requests served", rate,
      std::llround(NumberField(in.stats.value("totals", json::object()), "requests")));
}

std::string LastRequest(const json& s) {
  if (!s.value("model", json()).is_string()) return "LAST       (no request yet)";
  std::string ttft = Has(s, "time_to_first_token")
                         ? fmt::format("{:.3f} s", NumberField(s, "time_to_first_token"))
                         : "-";
  std::string tps = Has(s, "tokens_per_second")
                        ? fmt::format("{:.1f}", NumberField(s, "tokens_per_second"))
                        : "-";
  return fmt::format("LAST       {}: TTFT {}, {} tok/s, {} in ({} cached) / {} out",
                     TextField(s, "model"), ttft, tps, s.value("input_tokens", 0),
                     s.value("cached_tokens", 0), s.value("output_tokens", 0));
}

// Speculative decoding per model: how much of what the drafts wrote the
// target kept, or that `auto` switched a draft off. Empty without drafts.
std::string Drafts(const json& stats) {
  const json list = stats.value("speculative", json::array());
  if (!list.is_array() || list.empty()) return "";
  std::string line = "DRAFTS    ";
  for (const json& s : list) {
    if (!s.is_object()) continue;
    line += " " + TextField(s, "model") + ": ";
    if (s.contains("switched_off")) {
      line += fmt::format("switched off ({:.2f} accepted)",
                          NumberField(s["switched_off"], "acceptance"));
    } else if (Has(s, "acceptance")) {
      line += fmt::format("{:.2f} of {} drafted accepted", NumberField(s, "acceptance"),
                          std::llround(NumberField(s, "drafted_tokens")));
    } else {
      line += "no drafts yet";
    }
    line += ";";
  }
  line.pop_back();
  return line;
}

}  // namespace

std::string Bar(double fraction, int cells) {
  fraction = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
  int filled = static_cast<int>(std::lround(fraction * cells));
  return "[" + std::string(filled, '#') + std::string(cells - filled, '.') + "]";
}

std::vector<std::string> RenderTop(const TopInput& in, int width, int height) {
  std::vector<std::string> out;
  out.push_back(fmt::format("zest top  {}  {}  (q quits)", in.server, in.clock));
  out.push_back("");
  Devices(in, out);
  out.push_back("");
  const std::string drafts = Drafts(in.stats);
  std::size_t footer = drafts.empty() ? 3 : 4;  // blank, throughput, drafts, last request
  std::size_t used = out.size() + footer;
  std::size_t room =
      height > 0 && std::size_t(height) > used + 1 ? std::size_t(height) - used - 1 : 1;
  Models(in, out, room);
  out.push_back("");
  out.push_back(Throughput(in));
  if (!drafts.empty()) out.push_back(drafts);
  out.push_back(LastRequest(in.stats));
  if (height > 0 && out.size() > std::size_t(height)) out.resize(std::size_t(height));
  for (std::string& line : out) line = Fit(std::move(line), std::size_t(std::max(width, 1)));
  return out;
}

}  // namespace zest::cli
