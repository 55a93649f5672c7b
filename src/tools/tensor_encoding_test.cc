#include "tools/tensor_encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace zest::tools {
namespace {

TEST(HalfTest, EncodesKnownValues) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // ties to even rounds up to infinity
  EXPECT_EQ(FloatToHalf(1e9f), 0x7c00);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::nanf("")))));
}

TEST(HalfTest, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties to even.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3·2^-11 is halfway between 0x3c01 and 0x3c02: to the even 0x3c02.
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above halfway rounds up.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
}

TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const float f = HalfToFloat(half);
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), half) << std::hex << h;
  }
}

TEST(Q8_0Test, EncodesBlocksWithinQuantisationError) {
  std::vector<float> values(64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<float>(i)) * 0.5f;
  std::string bytes;
  AppendQ8_0(values, bytes);
  ASSERT_EQ(bytes.size(), 2 * kQ8_0BlockBytes);
  const std::vector<float> decoded = DecodeQ8_0(bytes);
  ASSERT_EQ(decoded.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(decoded[i], values[i], 0.5f / 127 * 0.51f + 1e-3f) << i;
  }
}

TEST(Q8_0Test, ZeroBlockHasZeroScale) {
  std::string bytes;
  AppendQ8_0(std::vector<float>(32, 0.0f), bytes);
  EXPECT_EQ(bytes, std::string(kQ8_0BlockBytes, '\0'));
}

TEST(Q8_0Test, LargestValueMapsTo127) {
  std::vector<float> values(32, 0.0f);
  values[3] = -2.0f;
  values[5] = 1.0f;
  std::string bytes;
  AppendQ8_0(values, bytes);
  EXPECT_EQ(static_cast<int8_t>(bytes[2 + 3]), -127);
  EXPECT_EQ(static_cast<int8_t>(bytes[2 + 5]), 64);  // round(63.5) away from zero
}

}  // namespace
}  // namespace zest::tools
