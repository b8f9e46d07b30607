# SPDX-License-Identifier: MIT
# The bundle's recorder and plain filters are static executables (file:
# "statically linked"; ldd: "not a dynamic executable"); the two that need
# libcurl are dynamic, and BUNDLE.md names their libraries.
. "$INGERO_TESTS/cli/dist/common.bash"

mkdir d
t=$(make_dist "$DIST_TEST/b1" "$PWD/d")
mkdir x
tar -xzf "$t" -C x --strip-components=1
for p in ingero ingero-record ingero-correlate ingero-merge ingero-symbolize; do
	file -b "x/bin/$p" | grep -q 'statically linked' || fail "$p: $(file -b "x/bin/$p")"
	out=$(ldd "x/bin/$p" 2>&1 || true)
	[[ $out == *"not a dynamic executable"* ]] || fail "ldd $p: $out"
	echo "$p static"
done
for p in ingero-export ingero-mcp; do
	file -b "x/bin/$p" | grep -q 'dynamically linked' || fail "$p: $(file -b "x/bin/$p")"
	grep -q "bin/$p\` needs: .*libcurl" x/BUNDLE.md || fail "BUNDLE.md: no libraries listed for $p"
	echo "$p dynamic"
done
# it runs from anywhere: no build path inside
x/bin/ingero-record --help | sed -n 1p
if grep -aq -e "$REPO" -e "$DIST_TEST" x/bin/*; then
	fail "a build path is in a program"
fi
