# zest: the two commands a user needs are `make run` and `make test`; both do
# all set-up themselves (packages, build, engine provisioning).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_BUILD_TYPE ?= RelWithDebInfo

.PHONY: all deps build deb engines run test unit integration browser compat agents record-agents bench clean fuzz asan lint tidy soak

all: build

deps:
	@scripts/deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE)

# The web UI, rebuilt when any of its sources change; zest embeds ui/dist.
UI_SOURCES := $(shell find ui -path ui/node_modules -prune -o -path ui/dist -prune -o -type f -print 2>/dev/null)

ui/dist/index.html: $(UI_SOURCES)
	@scripts/build-ui.sh

build: deps ui/dist/index.html $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# zest_<version>_<arch>.deb in $(BUILD_DIR)/deb (packaging/debian/README.md).
deb: build
	@scripts/deps.sh --package
	@scripts/make-deb.sh

engines: deps
	@scripts/provision-engines.sh

run: build engines
	@scripts/run.sh

# Every stage in order, timed (scripts/test.sh prints the time of each).
test:
	@scripts/test.sh

# GoogleTest suites that need only the build, and the web UI's own (Vitest)...
unit:
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -LE integration
	cd ui && npm test --silent

tests/node_modules/.package-lock.json: tests/package.json tests/package-lock.json
	cd tests && npm ci --no-audit --no-fund --loglevel=error

# ...and those that need the provisioned engine, then the node suites
# (real zest + real llama-server).
integration: tests/node_modules/.package-lock.json
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L integration
	@scripts/node-tests.mjs --label integration --out $(BUILD_DIR)/test-results tests/integration/*.test.mjs

# The web UI in Debian's Chromium (playwright-core, axe-core) against a real
# zest; screenshots land in tests/ui/output/.
browser: tests/node_modules/.package-lock.json
	@scripts/node-tests.mjs --label browser --out $(BUILD_DIR)/test-results tests/ui/*.test.mjs

compat: tests/node_modules/.package-lock.json
	@scripts/node-tests.mjs --label compat --out $(BUILD_DIR)/test-results tests/compat/*.test.mjs

# The coding agents people point at zest (Codex, Claude Code, opencode, Qwen
# Code, Continue), pinned in tests/agents/package.json, installed once.
tests/agents/node_modules/.package-lock.json: tests/agents/package.json tests/agents/package-lock.json
	@scripts/install-agents.sh

agents: tests/node_modules/.package-lock.json tests/agents/node_modules/.package-lock.json
	@scripts/node-tests.mjs --label agents --out $(BUILD_DIR)/test-results tests/agents/*.test.mjs

# The same runs, each passing turn also written to tests/fixtures/agents/ as
# what that client sent (redacted: tests/agents/lib/fixture.mjs), which the
# integration stage replays without the clients. Not part of make test.
record-agents: tests/node_modules/.package-lock.json tests/agents/node_modules/.package-lock.json
	@ZEST_RECORD_AGENTS=tests/fixtures/agents scripts/node-tests.mjs --label record-agents --out $(BUILD_DIR)/test-results tests/agents/*.test.mjs

# The timing-sensitive tests SOAK_N times (default 10) under `stress -c 2`,
# with the failure count per test (scripts/soak.sh). Not part of make test.
soak: build engines tests/node_modules/.package-lock.json
	@scripts/deps.sh --test
	@scripts/soak.sh

bench: build engines tests/node_modules/.package-lock.json
	@bench/run.sh

# clang-format on every C++ file, clang-tidy on the changed ones (see
# scripts/lint.sh); `make tidy` runs clang-tidy on every file (slow).
lint: build
	@scripts/deps.sh --test
	@scripts/lint.sh

tidy: build
	@scripts/deps.sh --test
	@LINT_ALL=1 scripts/lint.sh

# libFuzzer targets (clang, ASan+UBSan) in build-fuzz/, FUZZ_SECONDS each
# (default 20); without clang it fails under make test and in CI, and skips
# with a message when run by hand (scripts/fuzz.sh).
fuzz:
	@scripts/fuzz.sh

# zest built with ASan+UBSan in build-asan/, then the integration suite
# against it. Not part of `make test`.
asan: deps engines tests/node_modules/.package-lock.json
	@scripts/asan.sh

clean:
	rm -rf $(BUILD_DIR)
