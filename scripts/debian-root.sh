#!/usr/bin/env bash
# A fresh Debian 12 root filesystem (debootstrap --variant=minbase bookworm)
# for tests that install zest's package the way a user would
# (tests/integration/deb_install.test.mjs). Built once (about a minute,
# ~200 MB) and kept at /var/cache/zest/test-roots/debian-12 while its stamp
# matches; the tests work on copies. Prints the root's path. Needs root.
set -euo pipefail
root=/var/cache/zest/test-roots/debian-12
wanted="debootstrap minbase bookworm v1"
stamp=$root/.zest-root-stamp
log() { echo "debian-root: $*" >&2; }
mkdir -p "$(dirname "$root")"
exec 9>"$(dirname "$root")/.lock"
flock 9
if [[ -f $stamp && $(cat "$stamp") == "$wanted" ]]; then echo "$root"; exit 0; fi

mirror=${ZEST_DEBIAN_MIRROR:-}
if [[ -z $mirror ]]; then
  mirror=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}
tmp=$(mktemp -d "$(dirname "$root")/.debian-12.tmp.XXXXXX")
cleanup() { [[ -d ${tmp:-} ]] && { umount -l "$tmp/proc" "$tmp/sys" 2>/dev/null || true; rm -rf --one-file-system "$tmp"; }; }
trap cleanup EXIT
chmod 0755 "$tmp"
log "building a Debian 12 minbase root from $mirror"
if ! debootstrap --variant=minbase bookworm "$tmp" "$mirror" >"$tmp.log" 2>&1; then
  tail -n 20 "$tmp.log" >&2; rm -f "$tmp.log"; log "debootstrap failed"; exit 1
fi
rm -f "$tmp.log"
rm -rf "$tmp/var/cache/apt/archives/"*.deb
echo "$wanted" > "$tmp/.zest-root-stamp"
rm -rf --one-file-system "$root"
mv "$tmp" "$root"
tmp=""
echo "$root"
