#include "hardware/vulkan.h"

#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <fmt/format.h>
#include <vulkan/vulkan.h>

namespace zest::hardware {

namespace {

const char* DeviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

// The loader's entry points zest needs, resolved through
// vkGetInstanceProcAddr as the Vulkan spec prescribes for dynamic loading.
struct VulkanApi {
  PFN_vkCreateInstance create_instance = nullptr;
  PFN_vkDestroyInstance destroy_instance = nullptr;
  PFN_vkEnumeratePhysicalDevices enumerate = nullptr;
  PFN_vkGetPhysicalDeviceProperties properties = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties memory = nullptr;
};

VkInstance CreateInstance(const VulkanApi& api) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "zest";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (api.create_instance(&info, nullptr, &instance) != VK_SUCCESS) return VK_NULL_HANDLE;
  return instance;
}

VulkanDevice Describe(const VulkanApi& api, VkPhysicalDevice physical) {
  VkPhysicalDeviceProperties props{};
  api.properties(physical, &props);
  VkPhysicalDeviceMemoryProperties mem{};
  api.memory(physical, &mem);
  VulkanDevice d;
  d.name = props.deviceName;
  d.type = DeviceTypeName(props.deviceType);
  d.api_version =
      fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(props.apiVersion),
                  VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_PATCH(props.apiVersion));
  d.vendor_id = props.vendorID;
  d.device_id = props.deviceID;
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i) {
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      d.device_local_bytes += mem.memoryHeaps[i].size;
  }
  return d;
}

std::vector<VulkanDevice> Enumerate(void* library) {
  auto get_proc =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(::dlsym(library, "vkGetInstanceProcAddr"));
  if (get_proc == nullptr) return {};
  VulkanApi api;
  api.create_instance =
      reinterpret_cast<PFN_vkCreateInstance>(get_proc(VK_NULL_HANDLE, "vkCreateInstance"));
  if (api.create_instance == nullptr) return {};
  VkInstance instance = CreateInstance(api);
  if (instance == VK_NULL_HANDLE) return {};  // no driver: VK_ERROR_INCOMPATIBLE_DRIVER
  api.destroy_instance =
      reinterpret_cast<PFN_vkDestroyInstance>(get_proc(instance, "vkDestroyInstance"));
  api.enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(
      get_proc(instance, "vkEnumeratePhysicalDevices"));
  api.properties = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(
      get_proc(instance, "vkGetPhysicalDeviceProperties"));
  api.memory = reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties>(
      get_proc(instance, "vkGetPhysicalDeviceMemoryProperties"));
  std::vector<VulkanDevice> out;
  uint32_t count = 0;
  if (api.enumerate && api.properties && api.memory &&
      api.enumerate(instance, &count, nullptr) == VK_SUCCESS) {
    std::vector<VkPhysicalDevice> devices(count);
    if (api.enumerate(instance, &count, devices.data()) == VK_SUCCESS) {
      for (uint32_t i = 0; i < count; ++i) out.push_back(Describe(api, devices[i]));
    }
  }
  if (api.destroy_instance) api.destroy_instance(instance, nullptr);
  return out;
}

}  // namespace

std::vector<VulkanDevice> EnumerateVulkanDevices() {
  void* library = ::dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return {};
  std::vector<VulkanDevice> devices = Enumerate(library);
  ::dlclose(library);
  return devices;
}

}  // namespace zest::hardware
