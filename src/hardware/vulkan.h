// Vulkan physical devices, enumerated through the system's Vulkan loader
// (libvulkan.so.1, dlopen'd so zest runs without it). This is what
// llama.cpp's Vulkan backend can use on the host; engines in a sandbox may see
// a different set (their own loader and drivers), which is why the report
// also carries the engine's own device list.
#pragma once

#include <vector>

#include "hardware/inventory.h"

namespace zest::hardware {

// Empty (not an error) when there is no loader, no driver, or no device.
std::vector<VulkanDevice> EnumerateVulkanDevices();

}  // namespace zest::hardware
