#!/usr/bin/env bash
# `make deb`: a Debian package from an installed tree (make install DESTDIR=ROOT PREFIX=/usr),
# with dpkg-deb and no network. Depends: what dpkg-shlibdeps finds the binary (and liblsl, LiteRT) link,
# plus a JACK server. Prints the package's path.
# Usage: deb.sh ROOT VERSION OUT_FOLDER
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(realpath "$1") version=$2 out=$3
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# dpkg-shlibdeps reads debian/control of a source package: a minimal one is enough.
mkdir -p "$work/debian"
printf 'Source: pulsejack\n\nPackage: pulsejack\nArchitecture: any\n' > "$work/debian/control"
objects=("$root/usr/bin/pulsejack")
[ -f "$root/usr/lib/pulsejack/liblsl.so.2" ] && objects+=("$root/usr/lib/pulsejack/liblsl.so.2")
[ -f "$root/usr/lib/pulsejack/libLiteRt.so" ] && objects+=("$root/usr/lib/pulsejack/libLiteRt.so")
depends=$(cd "$work" && dpkg-shlibdeps -O "${objects[@]/#/-e}" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || {
    cat "$work/shlibdeps.log" >&2; exit 1; }
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; cat "$work/shlibdeps.log" >&2; exit 1; }

# What lintian is told, with the reason, in the package as lintian reads it.
install -D -m 644 packaging/lintian-overrides "$root/usr/share/lintian/overrides/pulsejack"
mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s#@VERSION@#$version#" -e "s#@ARCH@#$arch#" -e "s#@SIZE@#$size#" -e "s#@DEPENDS@#$depends#" \
    packaging/control.in > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$out"
package="$out/pulsejack_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$package" >/dev/null
rm -rf "$root/DEBIAN"
echo "$package"
