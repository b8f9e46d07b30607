#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# `make dist`'s packaging step (the Makefile builds the programs first):
#
#   cmd/ingero-record/dist.sh TARBALL BINDIR "STATIC PROGS" "DYNAMIC PROGS"
#
# Writes TARBALL (ingero-VERSION-linux-x86_64.tar.gz, one top folder of
# the same name): bin/ (debug info stripped), README.md, BUNDLE.md (what
# is static, which shared libraries the others need), format/SPEC.md,
# docs/, bench/gpu/ (the GPU proof script), man/ (pages generated from
# the programs' --help, and the log format's), LICENSE if there is one, and
# SHA256SUMS over all of them.  The
# bytes depend only on the inputs: names sorted, owner 0, modes fixed,
# every time SOURCE_DATE_EPOCH, gzip without name or time.  Run from the
# repository root.
set -euo pipefail
export LC_ALL=C TZ=UTC

die() { echo "dist.sh: $*" >&2; exit 2; }
(($# == 4)) || die "usage: dist.sh TARBALL BINDIR 'STATIC PROGS' 'DYNAMIC PROGS'"
tarball=$1 bindir=$2
read -r -a static <<<"$3"
read -r -a dynamic <<<"$4"
epoch=${SOURCE_DATE_EPOCH:-1700000000}
name=$(basename "$tarball" .tar.gz)

stage=$(mktemp -d "${TMPDIR:-/tmp}/ingero-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/$name
mkdir -p "$top/bin" "$top/format" "$top/docs" "$top/bench/gpu" "$top/man/man1" "$top/man/man5"

for p in "${static[@]}"; do
	# a static program has no program interpreter (PT_INTERP)
	if readelf -lW "$bindir/$p" | grep -q 'Requesting program interpreter'; then
		die "'$bindir/$p': not statically linked"
	fi
done
for p in "${static[@]}" "${dynamic[@]}"; do
	strip --strip-debug -o "$top/bin/$p" "$bindir/$p"
done

cp README.md "$top/"
cp format/SPEC.md "$top/format/"
cp docs/*.md docs/*.proto "$top/docs/"
[[ -f LICENSE ]] && cp LICENSE "$top/"
# the GPU proof script: run as root on a GPU node, it finds ../../bin
cp bench/gpu/run bench/gpu/*.py "$top/bench/gpu/"
# man pages (man -l man/man1/ingero-record.1, or MANPATH=$PWD/man), made
# from the bundled programs' --help as `make install` makes them
version=$(sed -n 's/^#define INGERO_VERSION "\(.*\)"/\1/p' lib/include/ingero/ilog.h)
date=$(date -u -d "@$epoch" +%Y-%m-%d)
for p in "${static[@]}" "${dynamic[@]}"; do
	frag=()
	[[ -f docs/man/$p.1.in ]] && frag=("docs/man/$p.1.in")
	"$bindir/$p" --help >"$stage/help" || die "'$bindir/$p' --help failed"
	python3 docs/man/gen.py man "$p" "$stage/help" "$version" "$date" "${frag[@]}" \
		>"$top/man/man1/$p.1"
done
sed -e 's,@DOCDIR@/format/SPEC.md,format/SPEC.md (in the bundle),' -e 's,@DOCDIR@,the bundle,g' \
	-e "s/@VERSION@/$version/" -e "s/@DATE@/$date/" \
	docs/man/ingero-log.5 >"$top/man/man5/ingero-log.5"

needed() {
	readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd ' ' -
}
{
	cat <<EOF
# $name

ingero for Linux x86_64.  Unpack anywhere, run bin/ingero-record as root
on the GPU node (\`bin/ingero-record --check\` first), analyze the log there
or anywhere with the other programs.  README.md says how to use them.

## Static programs: nothing but the kernel

EOF
	for p in "${static[@]}"; do
		echo "- \`bin/$p\`"
	done
	cat <<EOF

These are linked statically against glibc, libbpf, libelf, libdw, zlib,
zstd and msgpack-c, so they run on any x86_64 distribution and from a bare
root (a container or chroot holding only this folder, with /proc, /sys and
/dev mounted).  The recorder's BPF programs are inside it.  glibc rather
than musl: Debian ships static archives of every dependency built against
glibc, none built against musl.  A static glibc reads /etc/passwd itself
but cannot load another glibc's NSS modules: give \`ingero-record --user\`
a numeric uid for users from LDAP or SSSD.

The recorder needs Linux 5.15 or later (uprobe BPF cookies; BPF ring
buffers came in 5.8) built with BTF (\`/sys/kernel/btf/vmlinux\`,
CONFIG_DEBUG_INFO_BTF=y) and uprobe events (CONFIG_UPROBE_EVENTS=y).  On
6.6 or later it attaches with uprobe_multi links (one per library), before
that with one perf uprobe per function.  tracefs is not needed.  It takes
its lock in /run/ingero-record.lock (creating /run if the root lacks it),
or in \$INGERO_RECORD_LOCK.

## Dynamic programs

EOF
	for p in "${dynamic[@]}"; do
		echo "- \`bin/$p\` needs: $(needed "$top/bin/$p")"
	done
	cat <<EOF

These link libcurl (the ClickHouse sink), whose static archive needs
others Debian does not ship.  Install the packages holding those libraries
(Debian and Ubuntu: libcurl4, libsqlite3-0, libdeflate0, libjansson4,
libzstd1), or export the log on a machine that has them.
EOF
} >"$top/BUNDLE.md"

(cd "$top" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum >SHA256SUMS)

mkdir -p "$(dirname "$tarball")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --format=gnu \
	--mode='u=rwX,go=rX' -C "$stage" -cf - "$name" | gzip -n -9 >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
