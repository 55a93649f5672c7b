#include "api/admin/models_api.h"

#include <gtest/gtest.h>

namespace zest::api::admin {
namespace {

TEST(ModelsApiTest, QueryParamDecodes) {
  EXPECT_EQ(QueryParam("model=org%2Frepo%3AQ4_K_M", "model"), "org/repo:Q4_K_M");
  EXPECT_EQ(QueryParam("a=1&model=x+y&b", "model"), "x y");
  EXPECT_EQ(QueryParam("a=1&b", "b"), "");
  EXPECT_EQ(QueryParam("a=1", "model"), "");
  EXPECT_EQ(QueryParam("model=%zz", "model"), "%zz");
  EXPECT_EQ(QueryParam("", "model"), "");
}

}  // namespace
}  // namespace zest::api::admin
