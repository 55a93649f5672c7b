#include "core/result.h"

#include <gtest/gtest.h>

namespace zest {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  ZEST_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

Status CheckEven(int x) {
  ZEST_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(ResultTest, CarriesValueOrStatus) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().ToString(), "invalid_argument: odd");
}

TEST(ResultTest, ReturnIfErrorStopsAtFirstError) {
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(3).message(), "odd");
}

}  // namespace
}  // namespace zest
