#!/usr/bin/env bash
# Installs the Debian packages zest needs to build, test and run its engines.
# Quick when everything is present: it only asks dpkg. Uses sudo when not root.
set -euo pipefail

build=(g++ cmake ninja-build ccache pkg-config make
       libboost1.81-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
       libcurl4-openssl-dev libssl-dev libtomlplusplus-dev libgtest-dev libgmock-dev
       libvulkan-dev)
# ffmpeg: speech out answers mp3, opus, aac and flac (and speeds other than
# 1) made by it, and speech to text reads WebM, Opus and M4A converted by it
# (engines/audio_converter.h), so `make run` installs it too.
engines=(debootstrap bubblewrap ffmpeg)
wanted=("${build[@]}" "${engines[@]}")
# The web UI (ui/) is built with its npm toolchain (scripts/build-ui.sh);
# the tests drive zest with node's test runner and the official SDKs.
if ! command -v npm >/dev/null 2>&1; then
  wanted+=(nodejs npm)
fi
# The browser tests (tests/ui/) drive Debian's Chromium with playwright-core.
[[ ${1:-} == --test ]] && wanted+=(chromium)
# The scale-out tests put zest nodes behind Debian's HAProxy, each node in a
# network namespace of its own (`ip netns`, iproute2; minimal images lack it).
[[ ${1:-} == --test ]] && wanted+=(haproxy iproute2)
# The metrics tests check zest's /metrics with promtool and scrape it with a
# real Prometheus server (both in Debian's prometheus package).
if [[ ${1:-} == --test ]]; then
  wanted+=(prometheus)
fi

# make deb (scripts/make-deb.sh) computes Depends with dpkg-shlibdeps,
# writes man pages with help2man and checks the package with lintian; the
# tests build it.
[[ ${1:-} == --test || ${1:-} == --package ]] && wanted+=(dpkg-dev help2man lintian)
# service_unit.test.mjs checks the unit with systemd-analyze (systemd),
# runs zest under setpriv --no-new-privs (util-linux) and reads the notify
# datagrams with python3.
[[ ${1:-} == --test ]] && wanted+=(systemd util-linux python3)

# make soak loads both cores with stress while it repeats the timing tests.
[[ ${1:-} == --test ]] && wanted+=(stress)

# The fuzz targets (make fuzz, part of make test) need clang's libFuzzer;
# make lint needs clang-format and clang-tidy.
[[ ${1:-} == --test ]] && wanted+=(clang clang-format clang-tidy)

missing=()
for p in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
