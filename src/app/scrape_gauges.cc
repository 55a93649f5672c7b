#include "app/scrape_gauges.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace zest::app {

// Gauges read from the pool at scrape time.
// A model with replicas has several instances: one sample per model.
void AddPoolGauges(metrics::Registry& metrics, scheduler::InstanceDirectory& instances) {
  using Samples = std::vector<std::pair<metrics::LabelValues, double>>;
  metrics.AddGaugeCallback("zest_models_loaded", "Models with a ready engine instance.", {},
                           [&instances] {
                             std::set<std::string> ready;
                             for (const auto& s : instances.List()) {
                               if (s.state == "ready") ready.insert(s.model);
                             }
                             return Samples{{{}, double(ready.size())}};
                           });
  metrics.AddGaugeCallback("zest_model_instances",
                           "Ready engine instances per model (replicas included).", {"model"},
                           [&instances] {
                             std::map<std::string, double> count;
                             for (const auto& s : instances.List())
                               count[s.model] += s.state == "ready" ? 1 : 0;
                             Samples out;
                             for (const auto& [model, n] : count) out.push_back({{model}, n});
                             return out;
                           });
  metrics.AddGaugeCallback("zest_requests_running", "Requests being relayed to an engine.",
                           {"model"}, [&instances] {
                             std::map<std::string, double> running;
                             for (const auto& s : instances.List()) running[s.model] += s.in_flight;
                             Samples out;
                             for (const auto& [model, n] : running) out.push_back({{model}, n});
                             return out;
                           });
}

// Queue depth per model and priority, and busy slots, read at scrape time.
void AddQueueGauges(metrics::Registry& metrics, scheduler::Admission& admission) {
  using Samples = std::vector<std::pair<metrics::LabelValues, double>>;
  metrics.AddGaugeCallback("zest_queue_depth", "Requests waiting for a slot.",
                           {"model", "priority"}, [&admission] {
                             Samples out;
                             for (const auto& q : admission.Stats()) {
                               out.push_back({{q.model, "high"}, double(q.waiting_high)});
                               out.push_back({{q.model, "normal"}, double(q.waiting_normal)});
                               out.push_back({{q.model, "low"}, double(q.waiting_low)});
                             }
                             return out;
                           });
  metrics.AddGaugeCallback("zest_slots_busy", "Slots in use per model.", {"model"}, [&admission] {
    Samples out;
    for (const auto& q : admission.Stats()) out.push_back({{q.model}, double(q.busy)});
    return out;
  });
  metrics.AddGaugeCallback("zest_slots_capacity", "Slots (engine parallel sequences) per model.",
                           {"model"}, [&admission] {
                             Samples out;
                             for (const auto& q : admission.Stats())
                               out.push_back({{q.model}, double(q.slots)});
                             return out;
                           });
}

}  // namespace zest::app
