// Device gauges for /metrics, read from the hardware sampler at scrape time:
// utilisation and memory per device, labelled by `device` (cpu, or the PCI
// address of a GPU/NPU) and `kind` (cpu, gpu, npu). Bounded by the
// machine's devices.
#pragma once

#include "hardware/inventory.h"
#include "hardware/sampler.h"
#include "metrics/registry.h"

namespace zest::api {

// `sampler` must outlive `registry`'s scrapes; `inventory` is copied (the
// totals it holds do not change).
void AddDeviceGauges(metrics::Registry& registry, const hardware::Inventory& inventory,
                     const hardware::UtilisationSampler& sampler);

}  // namespace zest::api
