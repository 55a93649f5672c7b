#include "api/admit_request.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

using namespace std::chrono_literals;

// The wait a request asking `header` seconds gets, for an inference key or
// not, when the server's default is 300 s.
std::chrono::milliseconds WaitFor(bool inference, const std::string& header) {
  http::Request r;
  r.inference_key = inference;
  r.headers.emplace_back("X-Queue-Timeout", header);
  const auto before = scheduler::Clock::now();
  Result<scheduler::AdmitRequest> admit = AdmitRequestFor(r, "", "m", 300s);
  EXPECT_TRUE(admit.ok()) << header;
  return std::chrono::duration_cast<std::chrono::milliseconds>(admit->deadline - before);
}

// Issue 52, MEDIUM 7: any key could wait up to a day, holding its
// connection all that time.
TEST(AdmitRequest, AnInferenceKeyWaitsNoLongerThanTheServersDefault) {
  EXPECT_LE(WaitFor(true, "86400"), 301s);
  EXPECT_GE(WaitFor(true, "86400"), 299s);
  EXPECT_LE(WaitFor(true, "0.5"), 600ms);      // shorter is fine
  EXPECT_GE(WaitFor(false, "86400"), 86399s);  // an admin key, or no keys: as asked
}

}  // namespace
}  // namespace zest::api
