#!/usr/bin/env bash
# make deb: zest_<version>_<arch>.deb from the build, the Debian way
# (dpkg-deb with Depends computed by dpkg-shlibdeps, a conffile, man pages
# from the programs' own --help, lintian run on the result).
#
#   scripts/make-deb.sh [OUT_DIR]     # default: $BUILD_DIR/deb
#
# The version has one source: the CMake project version, which
# `zest --version` prints. What the package holds and does is
# packaging/debian/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
out=$(realpath -m "${1:-$BUILD_DIR/deb}")
zest=$BUILD_DIR/zest
maker=$BUILD_DIR/zest-make-model
for f in "$zest" "$maker"; do
  [[ -x $f ]] || { echo "make-deb: $f is missing: run make build first" >&2; exit 1; }
done
version=$("$zest" --version | awk '{print $2}')
[[ $version =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || { echo "make-deb: odd version '$version'" >&2; exit 1; }
arch=$(dpkg --print-architecture)
name=zest_${version}_${arch}
stage=$out/$name
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/etc/zest" "$stage/usr/share/man/man1" \
         "$stage/usr/share/doc/zest" "$stage/lib/systemd/system"

# The programs, without their debug sections (the build keeps them).
for f in "$zest" "$maker"; do
  install -m 0755 "$f" "$stage/usr/bin/"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/$(basename "$f")"
done

# Man pages from --help: the CLI's help is the reference; zest's page adds
# the server's own options (`zest serve --help`) as a section.
serve_help=$(mktemp)
{ echo '[SERVER OPTIONS]'; echo '.nf'
  "$stage/usr/bin/zest" serve --help | sed 's/\\/\\e/g; s/^\./\\\&./'
  echo '.fi'; } > "$serve_help"
help2man -N --no-discard-stderr -n "local AI server for OpenAI, Anthropic and Ollama clients" \
  --include "$serve_help" "$stage/usr/bin/zest" | gzip -9n > "$stage/usr/share/man/man1/zest.1.gz"
rm -f "$serve_help"
help2man -N --no-discard-stderr --version-string="$version" \
  -n "write a synthetic GGUF model for tests" \
  "$stage/usr/bin/zest-make-model" | gzip -9n > "$stage/usr/share/man/man1/zest-make-model.1.gz"

install -m 0644 packaging/debian/config.toml "$stage/etc/zest/config.toml"
install -m 0644 packaging/debian/zest.service "$stage/lib/systemd/system/zest.service"
install -m 0644 packaging/debian/copyright "$stage/usr/share/doc/zest/copyright"
install -m 0644 packaging/debian/README.md "$stage/usr/share/doc/zest/README.md"
sed "s/@VERSION@/$version/; s/@DATE@/$(date -R -u -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")/" \
  packaging/debian/changelog.in | gzip -9n > "$stage/usr/share/doc/zest/changelog.gz"
for script in postinst prerm postrm; do
  install -m 0755 "packaging/debian/$script" "$stage/DEBIAN/$script"
done
echo /etc/zest/config.toml > "$stage/DEBIAN/conffiles"

# Depends: the shared libraries the programs link, as dpkg-shlibdeps finds
# their packages; libcurl, which zest opens itself on its first download
# (models/curl_library.h), so dpkg-shlibdeps cannot see it; and what zest
# runs: bubblewrap (the engine sandbox) and ffmpeg (audio and image
# conversion).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: zest\n\nPackage: zest\nArchitecture: any\n' > "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -e"$stage/usr/bin/zest" -e"$stage/usr/bin/zest-make-model" 2>/dev/null |
         sed -n 's/^shlibs:Depends=//p')
[[ -n $shlibs ]] || { echo "make-deb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
    -e "s/@SHLIBS@/$shlibs/" packaging/debian/control.in > "$stage/DEBIAN/control"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
   xargs -0 md5sum) > "$stage/DEBIAN/md5sums"

find "$stage" -type d -exec chmod 0755 {} +
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/$name.deb" >/dev/null
rm -rf "$stage"
echo "$out/$name.deb"
