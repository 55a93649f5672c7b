#include "metrics/registry.h"

#include <cmath>
#include <cstdio>
#include <variant>

namespace zest::metrics {
namespace {

void AtomicAdd(std::atomic<double>& target, double amount) {
  double current = target.load(std::memory_order_relaxed);
  while (!target.compare_exchange_weak(current, current + amount, std::memory_order_relaxed)) {
  }
}

std::string LabelSet(const std::vector<std::string>& names, const LabelValues& values,
                     const std::string& extra = "") {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    out += (out.empty() ? "" : ",") + names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra.empty()) out += (out.empty() ? "" : ",") + extra;
  return out.empty() ? "" : "{" + out + "}";
}

void Header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  out += "# HELP " + name + " " + EscapeHelp(help) + "\n";
  out += "# TYPE " + name + " " + type + "\n";
}

}  // namespace

void Counter::Inc(double amount) {
  if (amount > 0) AtomicAdd(value_, amount);  // counters never go down
}

void Gauge::Add(double delta) { AtomicAdd(value_, delta); }

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), buckets_(new std::atomic<uint64_t>[bounds.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) buckets_[i] = 0;
}

void Histogram::Observe(double value) {
  std::size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;  // le: value <= bound
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(sum_, value);
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.bounds = bounds_;
  uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  // The count is the +Inf bucket, so the two always agree in one scrape.
  s.count = running;
  return s;
}

std::vector<double> LatencyBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
}

struct Registry::Entry {
  std::string name;
  std::string help;
  std::variant<std::unique_ptr<Family<Counter>>, std::unique_ptr<Family<Gauge>>,
               std::unique_ptr<Family<Histogram>>>
      family;
  std::vector<std::string> callback_labels;
  GaugeCollector callback;  // set for callback gauges
};

Registry::Registry() = default;
Registry::~Registry() = default;

Family<Counter>& Registry::AddCounter(const std::string& name, const std::string& help,
                                      std::vector<std::string> label_names) {
  auto family = std::make_unique<Family<Counter>>(std::move(label_names),
                                                  [] { return std::make_unique<Counter>(); });
  auto& ref = *family;
  MutexLock lock(mu_);
  entries_.push_back(std::make_unique<Entry>(Entry{name, help, std::move(family), {}, {}}));
  return ref;
}

Family<Gauge>& Registry::AddGauge(const std::string& name, const std::string& help,
                                  std::vector<std::string> label_names) {
  auto family = std::make_unique<Family<Gauge>>(std::move(label_names),
                                                [] { return std::make_unique<Gauge>(); });
  auto& ref = *family;
  MutexLock lock(mu_);
  entries_.push_back(std::make_unique<Entry>(Entry{name, help, std::move(family), {}, {}}));
  return ref;
}

Family<Histogram>& Registry::AddHistogram(const std::string& name, const std::string& help,
                                          std::vector<std::string> label_names,
                                          const std::vector<double>& bounds) {
  auto family = std::make_unique<Family<Histogram>>(
      std::move(label_names), [bounds] { return std::make_unique<Histogram>(bounds); });
  auto& ref = *family;
  MutexLock lock(mu_);
  entries_.push_back(std::make_unique<Entry>(Entry{name, help, std::move(family), {}, {}}));
  return ref;
}

void Registry::AddGaugeCallback(const std::string& name, const std::string& help,
                                std::vector<std::string> label_names, GaugeCollector collect) {
  MutexLock lock(mu_);
  entries_.push_back(std::make_unique<Entry>(Entry{name, help, std::unique_ptr<Family<Gauge>>(),
                                                   std::move(label_names), std::move(collect)}));
}

std::string Registry::Render() const {
  std::string out;
  MutexLock lock(mu_);
  for (const auto& e : entries_) {
    if (e->callback) {
      Header(out, e->name, e->help, "gauge");
      for (const auto& [values, v] : e->callback()) {
        out += e->name + LabelSet(e->callback_labels, values) + " " + FormatValue(v) + "\n";
      }
    } else if (auto* c = std::get_if<0>(&e->family)) {
      Header(out, e->name, e->help, "counter");
      (*c)->ForEach([&](const LabelValues& values, const Counter& m) {
        out +=
            e->name + LabelSet((*c)->label_names(), values) + " " + FormatValue(m.value()) + "\n";
      });
    } else if (auto* g = std::get_if<1>(&e->family)) {
      Header(out, e->name, e->help, "gauge");
      (*g)->ForEach([&](const LabelValues& values, const Gauge& m) {
        out +=
            e->name + LabelSet((*g)->label_names(), values) + " " + FormatValue(m.value()) + "\n";
      });
    } else if (auto* h = std::get_if<2>(&e->family)) {
      Header(out, e->name, e->help, "histogram");
      (*h)->ForEach([&](const LabelValues& values, const Histogram& m) {
        Histogram::Snapshot s = m.Read();
        const auto& names = (*h)->label_names();
        for (std::size_t i = 0; i < s.cumulative.size(); ++i) {
          std::string le = i < s.bounds.size() ? FormatValue(s.bounds[i]) : "+Inf";
          out += e->name + "_bucket" + LabelSet(names, values, "le=\"" + le + "\"") + " " +
                 std::to_string(s.cumulative[i]) + "\n";
        }
        out += e->name + "_sum" + LabelSet(names, values) + " " + FormatValue(s.sum) + "\n";
        out += e->name + "_count" + LabelSet(names, values) + " " + std::to_string(s.count) + "\n";
      });
    }
  }
  return out;
}

std::string EscapeHelp(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"')
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Whole numbers (counts, bytes) as integers: %g would write 10 as "1e+01".
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", value);
  // Prefer the shortest representation that reads back exactly.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[64];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return buf;
}

}  // namespace zest::metrics
