#include "engines/rpc_backend.h"

#include <gtest/gtest.h>

namespace zest::engines {
namespace {

TEST(RpcBackendTest, DeviceNamesRoundTrip) {
  EXPECT_EQ(RpcDeviceName("10.0.0.2:50052"), "rpc:10.0.0.2:50052");
  EXPECT_EQ(RpcEndpointOf("rpc:[fd00::2]:50052"), "[fd00::2]:50052");
  EXPECT_EQ(RpcEndpointOf("Vulkan0"), std::nullopt);
  EXPECT_EQ(RpcEndpointOf("CPU"), std::nullopt);
}

// The engine numbers RPC devices by the order of its --rpc list.
TEST(RpcBackendTest, EngineDeviceNamesFollowTheRpcList) {
  auto names = EngineDeviceNames({"Vulkan0", "rpc:10.0.0.3:1", "rpc:10.0.0.2:1"},
                                 {"10.0.0.2:1", "10.0.0.3:1"});
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"Vulkan0", "RPC1", "RPC0"}));
  auto missing = EngineDeviceNames({"rpc:10.0.0.4:1"}, {"10.0.0.2:1"});
  EXPECT_EQ(missing.status().code(), ErrorCode::kInvalidArgument);
}

TEST(RpcBackendTest, ServerArgs) {
  RpcServerOptions o;
  o.host = "10.0.0.2";
  o.port = 6000;
  o.threads = 8;
  o.device = "CUDA0";
  o.cache = true;
  EXPECT_EQ(RpcServerArgs(o), (std::vector<std::string>{"ggml-rpc-server", "-H", "10.0.0.2", "-p",
                                                        "6000", "-t", "8", "-d", "CUDA0", "-c"}));
  EXPECT_EQ(RpcServerArgs({}),
            (std::vector<std::string>{"ggml-rpc-server", "-H", "127.0.0.1", "-p", "50052"}));
  EXPECT_EQ(RpcServerRootfsPath().filename(), "ggml-rpc-server");
}

TEST(RpcBackendTest, OnlyPrivateAddressesWithoutInsecure) {
  for (const char* ok :
       {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.10", "169.254.3.4"}) {
    EXPECT_TRUE(IsPrivateAddress(ok)) << ok;
    EXPECT_TRUE(CheckWorkerAddress(ok, false).ok()) << ok;
  }
  for (const char* bad : {"0.0.0.0", "8.8.8.8", "172.32.0.1"}) {
    EXPECT_FALSE(IsPrivateAddress(bad)) << bad;
    EXPECT_EQ(CheckWorkerAddress(bad, false).code(), ErrorCode::kInvalidArgument) << bad;
    EXPECT_TRUE(CheckWorkerAddress(bad, true).ok()) << bad;
  }
  // ggml-rpc-server binds IPv4 only: anything else is refused, --insecure or not.
  for (const char* v6_or_name : {"::", "::1", "fd00::2", "worker-1", ""}) {
    EXPECT_EQ(CheckWorkerAddress(v6_or_name, true).code(), ErrorCode::kInvalidArgument)
        << v6_or_name;
  }
  EXPECT_TRUE(IsPrivateAddress("fd00::2"));  // the allow-list itself knows IPv6
  EXPECT_FALSE(IsPrivateAddress("::ffff:8.8.8.8"));
}

}  // namespace
}  // namespace zest::engines
