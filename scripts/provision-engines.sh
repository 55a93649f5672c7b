#!/usr/bin/env bash
# Provisions the llama.cpp engine (llama-server) for zest. Idempotent.
#
# Sources, in order of preference (the same order zest itself searches):
#   1. a configured path: $ZEST_LLAMA_SERVER
#   2. llama-server on PATH ("system": Debian 13+, Ubuntu, Arch, Homebrew)
#   3. a Debian sid root filesystem made with debootstrap, run with bubblewrap.
#      Debian 12 has no llama.cpp package and sid's is built against a newer
#      glibc, so it cannot be installed directly; inside its own rootfs it runs.
#
# The rootfs lives outside the checkout ($ZEST_ENGINE_ROOTFS, else
# /var/cache/zest/engines/debian-sid as root, else $XDG_CACHE_HOME/zest/...).
# It is reused while its stamp (the wanted package set and the versions that
# were installed) matches; otherwise it is rebuilt in a temporary directory and
# renamed into place, so a failed or interrupted build never leaves a
# half-made engine behind. ZEST_ENGINE_REFRESH=1 forces a rebuild.
set -euo pipefail

log() { printf 'engines: %s\n' "$*" >&2; }

if [[ -n ${ZEST_LLAMA_SERVER:-} ]]; then
  [[ -x $ZEST_LLAMA_SERVER ]] || { log "ZEST_LLAMA_SERVER=$ZEST_LLAMA_SERVER is not executable"; exit 1; }
  log "using configured llama-server: $ZEST_LLAMA_SERVER"
  exit 0
fi
if [[ -z ${ZEST_ENGINE_ROOTFS:-} ]] && command -v llama-server >/dev/null 2>&1; then
  log "using system llama-server: $(command -v llama-server)"
  exit 0
fi

default_root() {
  if [[ $(id -u) -eq 0 ]]; then echo /var/cache/zest/engines/debian-sid
  else echo "${XDG_CACHE_HOME:-$HOME/.cache}/zest/engines/debian-sid"; fi
}
root=${ZEST_ENGINE_ROOTFS:-$(default_root)}
packages=(llama.cpp-tools)
if [[ ${ZEST_ENGINE_VULKAN:-0} == 1 ]]; then
  packages+=(libggml0-backend-vulkan mesa-vulkan-drivers)
fi
wanted="packages: ${packages[*]}"
stamp=$root/.zest-engine-stamp

# The rootfs is reused when its stamp names the same package set and the
# versions recorded at build time are still what its dpkg database says.
installed_versions() {
  chroot_dpkg=$1/var/lib/dpkg/status
  for p in "${packages[@]}"; do
    awk -v p="$p" '$1=="Package:" {cur=$2} $1=="Version:" && cur==p {print p"="$2}' "$chroot_dpkg"
  done
}
if [[ ${ZEST_ENGINE_REFRESH:-0} != 1 && -f $stamp ]]; then
  if [[ $(head -n1 "$stamp") == "$wanted" && $(tail -n +2 "$stamp") == "$(installed_versions "$root")" ]]; then
    log "rootfs up to date: $root ($(tail -n +2 "$stamp" | tr '\n' ' '))"
    exit 0
  fi
  log "rootfs stamp differs from the wanted packages; rebuilding"
fi

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
for tool in debootstrap bwrap; do
  command -v "$tool" >/dev/null 2>&1 || { log "$tool is missing: run 'make deps'"; exit 1; }
done

# The mirror this machine's apt already uses (deb822 or one-line sources).
mirror=${ZEST_DEBIAN_MIRROR:-}
if [[ -z $mirror ]]; then
  mirror=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1 || true)
fi
if [[ -z $mirror ]]; then
  mirror=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}' | grep -v security | head -n1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

parent=$(dirname "$root")
"${sudo_cmd[@]}" mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.debian-sid.tmp.XXXXXX")
cleanup() { [[ -n ${tmp:-} && -d $tmp ]] && "${sudo_cmd[@]}" rm -rf "$tmp"; }
trap cleanup EXIT

log "building Debian sid rootfs with ${packages[*]} from $mirror (about a minute, ~300 MB)"
include=$(IFS=,; echo "${packages[*]}")
if ! "${sudo_cmd[@]}" debootstrap --variant=minbase --include="$include" sid "$tmp" "$mirror" >"$tmp.log" 2>&1; then
  tail -n 20 "$tmp.log" >&2; rm -f "$tmp.log"
  log "debootstrap failed"; exit 1
fi
rm -f "$tmp.log"
"${sudo_cmd[@]}" rm -rf "$tmp/var/cache/apt/archives/"*.deb
{ echo "$wanted"; installed_versions "$tmp"; } | "${sudo_cmd[@]}" tee "$tmp/.zest-engine-stamp" >/dev/null

# Check the engine really runs before publishing it.
if ! "${sudo_cmd[@]}" bwrap --bind "$tmp" / --dev /dev --proc /proc --unshare-pid --die-with-parent \
     llama-server --version >/dev/null 2>&1; then
  log "llama-server does not run inside the new rootfs"; exit 1
fi

old=""
if [[ -e $root ]]; then old="$root.old.$$"; "${sudo_cmd[@]}" mv "$root" "$old"; fi
"${sudo_cmd[@]}" mv "$tmp" "$root"
tmp=""
[[ -n $old ]] && "${sudo_cmd[@]}" rm -rf "$old"
log "rootfs ready: $root"
