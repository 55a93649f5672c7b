#!/usr/bin/env bash
# Provisions the engines for zest: llama.cpp's llama-server and whisper.cpp's
# whisper-server (speech to text). Idempotent.
#
# Sources, in order of preference (the same order zest itself searches):
#   1. a configured path: $ZEST_LLAMA_SERVER ($ZEST_WHISPER_SERVER)
#   2. on PATH ("system": Debian 13+, Ubuntu, Arch, Homebrew)
#   3. a Debian sid root filesystem made with debootstrap, run with bubblewrap.
#      Debian 12 has no llama.cpp package and sid's is built against a newer
#      glibc, so it cannot be installed directly; inside its own rootfs it runs.
#
# The rootfs lives outside the checkout ($ZEST_ENGINE_ROOTFS, else
# /var/cache/zest/engines/debian-sid as root, else $XDG_CACHE_HOME/zest/...).
# It is reused while its stamp (the wanted package set and the versions that
# were installed) matches; otherwise it is rebuilt in a temporary directory and
# renamed into place, so a failed or interrupted build never leaves a
# half-made engine behind; concurrent runs take turns (flock on the parent).
# ZEST_ENGINE_REFRESH=1 forces a rebuild. Runs as root or as a user with sudo
# (debootstrap needs root; the result is readable by everyone).
set -euo pipefail
# debootstrap lives in /usr/sbin, which a non-root user's PATH on Debian
# lacks (sudo finds it through its secure_path; the check below must too).
export PATH="$PATH:/usr/sbin:/sbin"

log() { printf 'engines: %s\n' "$*" >&2; }

# A whisper-server outside the rootfs: configured, or on PATH.
whisper_elsewhere() {
  if [[ -n ${ZEST_WHISPER_SERVER:-} ]]; then
    [[ -x $ZEST_WHISPER_SERVER ]] || { log "ZEST_WHISPER_SERVER=$ZEST_WHISPER_SERVER is not executable"; exit 1; }
    log "using configured whisper-server: $ZEST_WHISPER_SERVER"
    return 0
  fi
  if command -v whisper-server >/dev/null 2>&1; then
    log "using system whisper-server: $(command -v whisper-server)"
    return 0
  fi
  return 1
}

# A llama-server outside the rootfs is used as it is; the rootfs is still
# made when there is no whisper-server elsewhere, for speech to text (zest
# takes each engine from the first place that has it).
llama_elsewhere=0
if [[ -n ${ZEST_LLAMA_SERVER:-} ]]; then
  [[ -x $ZEST_LLAMA_SERVER ]] || { log "ZEST_LLAMA_SERVER=$ZEST_LLAMA_SERVER is not executable"; exit 1; }
  log "using configured llama-server: $ZEST_LLAMA_SERVER"
  llama_elsewhere=1
elif [[ -z ${ZEST_ENGINE_ROOTFS:-} ]] && command -v llama-server >/dev/null 2>&1; then
  log "using system llama-server: $(command -v llama-server)"
  llama_elsewhere=1
fi
if [[ $llama_elsewhere == 1 ]]; then
  whisper_elsewhere && exit 0
  log "no whisper-server outside the rootfs: provisioning the rootfs for speech to text"
fi

# ZEST_ENGINE_VULKAN=1 builds a second rootfs beside the first, with
# llama.cpp's Vulkan backend and Mesa (llvmpipe: a software Vulkan device, so
# GPU placement is tested on machines without a GPU).
default_root() {
  local name=debian-sid
  [[ ${ZEST_ENGINE_VULKAN:-0} == 1 ]] && name=debian-sid-vulkan
  if [[ $(id -u) -eq 0 ]]; then echo /var/cache/zest/engines/$name
  else echo "${XDG_CACHE_HOME:-$HOME/.cache}/zest/engines/$name"; fi
}
root=${ZEST_ENGINE_ROOTFS:-$(default_root)}
# whisper.cpp-tools brings /usr/bin/whisper-server; it shares sid's libggml0
# with llama.cpp-tools, so one rootfs serves both engines. llama.cpp-tools-extra
# has ggml-rpc-server (`zest worker`) and libggml0-backend-rpc the RPC
# backend that lets llama-server use workers (--rpc).
packages=(llama.cpp-tools whisper.cpp-tools llama.cpp-tools-extra libggml0-backend-rpc)
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
up_to_date() {
  [[ -f $stamp && -x $root/usr/bin/llama-server && -x $root/usr/bin/whisper-server ]] || return 1
  [[ $(head -n1 "$stamp") == "$wanted" && $(tail -n +2 "$stamp") == "$(installed_versions "$root")" ]]
}
if [[ ${ZEST_ENGINE_REFRESH:-0} != 1 ]] && up_to_date; then
  log "rootfs up to date: $root ($(tail -n +2 "$stamp" | tr '\n' ' '))"
  exit 0
fi
if [[ ${ZEST_ENGINE_REFRESH:-0} == 1 ]]; then log "rebuilding the rootfs (ZEST_ENGINE_REFRESH=1)"
elif [[ -f $stamp ]]; then log "rootfs stamp differs from the wanted packages; rebuilding"; fi

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
for tool in debootstrap bwrap flock; do
  command -v "$tool" >/dev/null 2>&1 || { log "$tool is missing: run 'make deps'"; exit 1; }
done

# The parent is made as the invoking user when possible, so a non-root run
# never leaves root-owned directories in ~/.cache; sudo only where it must.
parent=$(dirname "$root")
name=$(basename "$root")
mkdir -p "$parent" 2>/dev/null || "${sudo_cmd[@]}" mkdir -p "$parent"

# One build at a time: a second `make engines` waits, then finds the stamp.
exec 9<"$parent"
flock 9
if [[ ${ZEST_ENGINE_REFRESH:-0} != 1 ]] && up_to_date; then
  log "rootfs up to date: $root (built by a concurrent run)"
  exit 0
fi

# Leftovers of a run that was SIGKILLed; under the lock nobody else owns them.
for stale in "$parent/.$name.tmp."* "$root.old."*; do
  [[ -d $stale ]] || continue
  log "removing what an interrupted run left: $stale"
  "${sudo_cmd[@]}" umount -l "$stale/proc" "$stale/sys" 2>/dev/null || true
  "${sudo_cmd[@]}" rm -rf --one-file-system "$stale"
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

tmp=$("${sudo_cmd[@]}" mktemp -d "$parent/.$name.tmp.XXXXXX")
build_log=$(mktemp)
cleanup() {
  rm -f "$build_log"
  [[ -n ${tmp:-} && -d $tmp ]] || return 0
  # An interrupted debootstrap can leave /proc and /sys mounted inside.
  "${sudo_cmd[@]}" umount -l "$tmp/proc" "$tmp/sys" 2>/dev/null || true
  "${sudo_cmd[@]}" rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP  # so an interrupted build still runs cleanup
# mktemp makes 0700; a rootfs root is 0755 like any /.
"${sudo_cmd[@]}" chmod 0755 "$tmp"

log "building Debian sid rootfs with ${packages[*]} from $mirror (about 90 s, ~680 MB)"
include=$(IFS=,; echo "${packages[*]}")
if ! "${sudo_cmd[@]}" debootstrap --variant=minbase --include="$include" sid "$tmp" "$mirror" >"$build_log" 2>&1; then
  tail -n 20 "$build_log" >&2
  log "debootstrap failed"; exit 1
fi
"${sudo_cmd[@]}" rm -rf "$tmp/var/cache/apt/archives/"*.deb
{ echo "$wanted"; installed_versions "$tmp"; } | "${sudo_cmd[@]}" tee "$tmp/.zest-engine-stamp" >/dev/null

# Check the engines really run before publishing them, in the same read-only
# sandbox zest uses (src/engines/engine_locator.cc), as the invoking user.
# whisper-server has no --version; --help exits 0 once its libraries load.
for probe in "llama-server --version" "whisper-server --help"; do
  read -r engine flag <<<"$probe"
  if ! bwrap --die-with-parent --unshare-pid --ro-bind "$tmp/usr" /usr \
       --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --symlink usr/sbin /sbin \
       --ro-bind "$tmp/etc" /etc --dev /dev --proc /proc --tmpfs /tmp \
       -- "/usr/bin/$engine" "$flag" >"$build_log" 2>&1; then
    cat "$build_log" >&2
    log "$engine does not run inside the new rootfs"; exit 1
  fi
done

# Publish: rename the old one aside, the new one into place, then delete the
# old. Running engines keep their bind mounts of the old tree meanwhile.
old=""
if [[ -e $root ]]; then old="$root.old.$$"; "${sudo_cmd[@]}" mv -T "$root" "$old"; fi
"${sudo_cmd[@]}" mv -T "$tmp" "$root"
tmp=""
[[ -n $old ]] && "${sudo_cmd[@]}" rm -rf --one-file-system "$old"
log "rootfs ready: $root"
