// What a test file needs from the machine, and what happens without it.
// `make test` installs every tool the tests use (scripts/deps.sh --test) and
// provisions every engine (the Vulkan rootfs too), so there a missing tool
// is a broken set-up, not a reason to skip: under `make test` (it sets
// ZEST_TEST_STRICT=1) or in CI (CI=true) a missing tool fails, by name.
// Only what no install can give (hardware, root for network namespaces)
// stays a skip. Run by hand without the tool, a file skips and says why.
import assert from 'node:assert/strict';
import { test } from 'node:test';

export const strict = process.env.ZEST_TEST_STRICT === '1' || /^(1|true)$/i.test(process.env.CI ?? '');

// `skip` option for a describe()/test() that needs `what` (a tool, a built
// part): false when `available`; otherwise the reason to skip, and in strict
// mode a failing test that names what is missing.
export function needs(available, what) {
  if (available) return false;
  const reason = `${what} is missing`;
  if (strict) {
    test(`set-up: ${what}`, () => {
      assert.fail(`${reason}: \`make test\` installs it (a missing tool fails under make test and in CI)`);
    });
  }
  return reason;
}
