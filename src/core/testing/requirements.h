// What a unit test needs from the machine, and what happens without it
// (test-only; the C++ side of tests/lib/requirements.mjs). `make test`
// installs every tool the tests use (scripts/deps.sh, bubblewrap among them)
// and provisions the engine rootfs, so there a missing one is a broken
// set-up, not a reason to skip: under `make test` (it sets
// ZEST_TEST_STRICT=1) or in CI (CI=1 or true) the test fails, naming what is
// missing. Run by hand without it, the test skips and says why. Only what no
// install can give (root, hardware, an IPv6 loopback) stays a plain skip.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace zest::testing {

// True under `make test` or in CI (see above).
inline bool StrictRequirements() {
  const char* strict = std::getenv("ZEST_TEST_STRICT");
  const char* ci = std::getenv("CI");
  const std::string c = ci ? ci : "";
  return (strict && std::string(strict) == "1") || c == "1" || c == "true" || c == "TRUE";
}

}  // namespace zest::testing

// Skips the current test when `available` is false, or fails it in strict
// mode; `what` names what is missing (a tool, a provisioned part). Use at the
// top of a TEST body, as GTEST_SKIP().
#define ZEST_REQUIRE(available, what)                                                     \
  do {                                                                                    \
    if (!(available)) {                                                                   \
      if (::zest::testing::StrictRequirements()) {                                        \
        FAIL() << (what) << " is missing: `make test` installs it (a missing tool fails " \
               << "under make test and in CI)";                                           \
      }                                                                                   \
      GTEST_SKIP() << (what) << " is missing";                                            \
    }                                                                                     \
  } while (0)
