// Gauges computed at scrape time from the scheduler's state: models and
// instances loaded, requests running (the pool), queue depth and slots per
// model (admission). Both must outlive `metrics`' scrapes.
#pragma once

#include "metrics/registry.h"
#include "scheduler/admission.h"
#include "scheduler/instance_directory.h"

namespace zest::app {

void AddPoolGauges(metrics::Registry& metrics, scheduler::InstanceDirectory& instances);
void AddQueueGauges(metrics::Registry& metrics, scheduler::Admission& admission);

}  // namespace zest::app
