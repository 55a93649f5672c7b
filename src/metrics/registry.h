// Metrics: counters, gauges and histograms with labels, rendered in the
// Prometheus text exposition format (version 0.0.4) for GET /metrics.
//
// Families are created once at startup (app/ wires them); updating a metric
// afterwards is lock-free on the hot path once its label set exists (a
// mutex guards only the first lookup of a new label set). Keep label values
// bounded: model names, endpoints, statuses — never request ids or raw paths.
// Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/mutex.h"

namespace zest::metrics {

using LabelValues = std::vector<std::string>;

class Counter {
 public:
  void Inc(double amount = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double delta);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds` are the upper bounds of the finite buckets, ascending.
  explicit Histogram(const std::vector<double>& bounds);
  void Observe(double value);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> cumulative;  // per bound, then +Inf last
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // non-cumulative; last is +Inf
  std::atomic<double> sum_{0};
  std::atomic<uint64_t> count_{0};
};

// Buckets for LLM latencies: from milliseconds (inter-token) to minutes
// (model loads, long generations).
std::vector<double> LatencyBuckets();

// A family: one metric name with a fixed list of label names; each distinct
// list of label values is one child.
template <typename Metric>
class Family {
 public:
  Family(std::vector<std::string> label_names, std::function<std::unique_ptr<Metric>()> make)
      : label_names_(std::move(label_names)), make_(std::move(make)) {}

  // The child for `values` (one per label name), created on first use.
  // The reference stays valid for the registry's lifetime.
  Metric& With(const LabelValues& values) {
    MutexLock lock(mu_);
    auto& slot = children_[values];
    if (!slot) slot = make_();
    return *slot;
  }

  const std::vector<std::string>& label_names() const { return label_names_; }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    MutexLock lock(mu_);
    for (const auto& [values, metric] : children_) fn(values, *metric);
  }

 private:
  const std::vector<std::string> label_names_;
  const std::function<std::unique_ptr<Metric>()> make_;
  mutable Mutex mu_;
  std::map<LabelValues, std::unique_ptr<Metric>> children_ GUARDED_BY(mu_);
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Names follow zest_<area>_<name>_<unit>; counters end in _total.
  Family<Counter>& AddCounter(const std::string& name, const std::string& help,
                              std::vector<std::string> label_names = {});
  Family<Gauge>& AddGauge(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names = {});
  Family<Histogram>& AddHistogram(const std::string& name, const std::string& help,
                                  std::vector<std::string> label_names,
                                  const std::vector<double>& bounds = LatencyBuckets());
  // A gauge whose children are computed at scrape time (queue depth, models
  // loaded...): `collect` returns (label values, value) pairs.
  using GaugeCollector = std::function<std::vector<std::pair<LabelValues, double>>()>;
  void AddGaugeCallback(const std::string& name, const std::string& help,
                        std::vector<std::string> label_names, GaugeCollector collect);

  // The text exposition of every family, in registration order.
  std::string Render() const;

 private:
  struct Entry;
  mutable Mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_ GUARDED_BY(mu_);
};

// Exposition escaping (exposed for tests): HELP text escapes '\' and
// newline; label values also escape '"'.
std::string EscapeHelp(const std::string& text);
std::string EscapeLabelValue(const std::string& value);
// Numbers as Prometheus expects: "+Inf", "-Inf", "NaN", else shortest form.
std::string FormatValue(double value);

}  // namespace zest::metrics
