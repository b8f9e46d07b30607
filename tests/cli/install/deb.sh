# make deb builds ingero_VERSION_ARCH.deb with dpkg-deb: control fields
# with a computed Depends, a Debian copyright file, changelog.Debian.gz,
# compressed man pages, stripped binaries; lintian reports no error
. "$INGERO_TESTS/cli/install/install.bash"
command -v lintian >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
	{ echo "lintian or dpkg-dev is missing (tests/deps.txt)" >&2; exit 77; }
fail() { echo "$*" >&2; bad=1; }
bad=0
mk deb DEBDIR="$PWD/dist" >deb.log 2>&1 || { cat deb.log >&2; exit 1; }
version=$(sed -n 's/^#define INGERO_VERSION "\(.*\)"/\1/p' "$root/lib/include/ingero/ilog.h")
deb=dist/ingero_${version}-1_$(dpkg --print-architecture).deb
[[ -s $deb ]] || { ls -R dist >&2; exit 1; }
dpkg-deb -f "$deb" >control
for f in Package Version Architecture Maintainer Installed-Size Depends Section Priority Description; do
	grep -q "^$f: ." control || fail "control: no $f"
done
grep -q '^Depends: .*libc6' control || fail "control: Depends without libc6: $(grep ^Depends control)"
mkdir x && dpkg-deb -x "$deb" x
d=x/usr/share/doc/ingero
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' $d/copyright &&
	grep -q '^License: Expat' $d/copyright || fail "copyright: not in Debian's format"
zcat $d/changelog.Debian.gz | head -n 1 | grep -q "^ingero ($version-1) " || fail "changelog.Debian.gz: bad"
for p in $progs; do
	[[ -s x/usr/share/man/man1/$p.1.gz ]] || fail "$p.1.gz: missing"
	readelf -S "x/usr/bin/$p" | grep -q '\.symtab' && fail "$p: not stripped"
done
[[ -s x/usr/share/man/man5/ingero-log.5.gz ]] || fail "ingero-log.5.gz: missing"
[[ ! -e x/usr/libexec/ingero/installed ]] || fail "the install list is in the package"
lintian "$deb" >lintian.txt 2>&1
grep '^E:' lintian.txt >&2 && fail "lintian reported errors"
exit $bad
