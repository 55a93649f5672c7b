#include "models/ggml_types.h"

#include <gtest/gtest.h>

namespace zest::models {
namespace {

TEST(GgmlTypesTest, KnowsBlockGeometry) {
  struct Expected {
    uint32_t type;
    const char* name;
    uint32_t block;
    uint32_t bytes;
  };
  const Expected cases[] = {
      {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},
      {3, "Q4_1", 32, 20},      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},      {10, "Q2_K", 256, 84},
      {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
      {17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
      {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
      {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {27, "I64", 1, 8},
      {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},   {30, "BF16", 1, 2},
      {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
  };
  for (const Expected& e : cases) {
    const GgmlTypeTraits* t = FindGgmlType(e.type);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_STREQ(t->name, e.name);
    EXPECT_EQ(t->block_size, e.block) << e.name;
    EXPECT_EQ(t->type_size, e.bytes) << e.name;
  }
  EXPECT_EQ(FindGgmlType(4), nullptr);
  EXPECT_EQ(FindGgmlType(1000), nullptr);
  EXPECT_EQ(GgmlTypeName(4), "type4");
}

TEST(GgmlTypesTest, SizesTensors) {
  EXPECT_EQ(*TensorByteSize(8, {64, 3}), 2u * 34 * 3);
  EXPECT_EQ(*TensorByteSize(14, {512, 2, 2}), 2u * 210 * 4);
  EXPECT_FALSE(TensorByteSize(8, {33}).ok());
  EXPECT_FALSE(TensorByteSize(0, {1ull << 62, 1ull << 62}).ok());
  EXPECT_FALSE(TensorByteSize(5, {32}).ok());
  EXPECT_EQ(*TensorByteSize(0, {4, 0}), 0u);
}

TEST(GgmlTypesTest, NamesFileTypes) {
  EXPECT_EQ(FileTypeName(0), "F32");
  EXPECT_EQ(FileTypeName(1), "F16");
  EXPECT_EQ(FileTypeName(7), "Q8_0");
  EXPECT_EQ(FileTypeName(15), "Q4_K_M");
  EXPECT_EQ(FileTypeName(32), "BF16");
  EXPECT_EQ(FileTypeName(38), "MXFP4_MOE");
  EXPECT_EQ(FileTypeName(5), "ftype5");
  EXPECT_EQ(FileTypeName(999), "ftype999");
}

}  // namespace
}  // namespace zest::models
