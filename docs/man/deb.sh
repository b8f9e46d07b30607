#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `make deb` (Makefile): turns a DESTDIR install with PREFIX=/usr into a
# Debian binary package.
#
#   deb.sh WORK OUTDIR VERSION EPOCH MAINTAINER
#
# WORK/debian/ingero holds the install (the layout dpkg-shlibdeps expects);
# the package is written to OUTDIR/ingero_VERSION_ARCH.deb and its path
# printed.  Binaries are stripped as dh_strip does, man pages and the
# changelog compressed with gzip -9n, every file dated EPOCH; the copyright
# file is LICENSE in Debian's machine-readable format; Depends comes from
# dpkg-shlibdeps over every ELF file.
set -eu
work=$(cd "$1" && pwd) outdir=$2 version=$3 epoch=$4 maint=$5
src=$(cd "$(dirname "$0")/../.." && pwd)
pkg=$work/debian/ingero
doc=$pkg/usr/share/doc/ingero
arch=$(dpkg --print-architecture)
date=$(date -u -R -d "@$epoch")
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)

# dpkg keeps the list of the package's files; LICENSE is the copyright file
rm -f "$pkg/usr/libexec/ingero/installed" "$doc/LICENSE"

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
elves=
for f in $(find "$pkg" -type f | sort); do
	is_elf "$f" || continue
	case $f in
	*.so | *.so.*) strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
	*) strip --remove-section=.comment --remove-section=.note "$f" ;;
	esac
	elves="$elves -e$f"
done

find "$pkg/usr/share/man" -type f -name '*.[1-9]' -exec gzip -9nf {} +

{
	echo "ingero ($version) unstable; urgency=medium"
	echo
	echo "  * Built from the ingero source tree, commit $commit."
	echo
	echo " -- $maint  $date"
} | gzip -9n >"$doc/changelog.Debian.gz"

{
	echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	echo "Upstream-Name: ingero"
	echo "Upstream-Contact: $maint"
	echo
	echo "Files: *"
	sed -n 's/^Copyright (c) /Copyright: /p' "$src/LICENSE"
	echo "License: Expat"
	# the permission text, without the title and copyright lines
	sed -e '1,/^Copyright/d' "$src/LICENSE" | sed -e '/./,$!d' -e 's/^$/./' -e 's/^/ /'
} >"$doc/copyright"

mkdir -p "$work/debian/ingero/DEBIAN"
printf 'Source: ingero\n\nPackage: ingero\nArchitecture: any\n' >"$work/debian/control"
# shellcheck disable=SC2086
substvars=$(cd "$work" && dpkg-shlibdeps -O $elves)
depends=$(echo "$substvars" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: ingero
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: explain why a GPU job stalled, from eBPF traces of CUDA calls
 ingero records the CUDA API calls a workload makes (runtime, driver,
 CUDA Graph, NCCL) together with what the host did to it (scheduler
 preemptions, memory pressure, OOM kills, other processes) using eBPF,
 with no change to the workload, and explains stalls as causal chains.
 .
 It is a set of Unix filters around one log format: ingero-record (root),
 ingero-symbolize, ingero-correlate, ingero-merge, ingero-export (JSON
 Lines, SQLite, Perfetto, Prometheus, OTLP, ClickHouse) and ingero-mcp, a
 Model Context Protocol server for AI assistants.  ingero-demo stages
 incidents on bundled fake CUDA libraries.
CONTROL
(cd "$pkg" && find . -type f ! -path './DEBIAN/*' | sed 's,^\./,,' | LC_ALL=C sort |
	xargs md5sum) >"$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -exec touch -h -d "@$epoch" {} +

mkdir -p "$outdir"
deb=$outdir/ingero_${version}_$arch.deb
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
