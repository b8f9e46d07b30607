# SPDX-License-Identifier: MIT
# `make dist` is reproducible: two builds from the same tree, in two
# different build directories, give byte-identical archives.  The archive
# holds one top folder with the programs, the docs and SHA256SUMS over
# them, owned by 0:0, every time the last commit's.
. "$INGERO_TESTS/cli/dist/common.bash"

rm -rf "$DIST_TEST"
mkdir -p "$DIST_TEST" d1 d2
# the first takes its time from the last commit itself; the second is
# told the same time, so that a commit made meanwhile changes nothing
epoch=$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 1700000000)
a=$(make_dist "$DIST_TEST/b1" "$PWD/d1")
b=$(SOURCE_DATE_EPOCH=$epoch make_dist "$DIST_TEST/b2" "$PWD/d2")
[[ $(basename "$a") == "$(basename "$b")" ]] || fail "names differ: $a $b"
cmp "$a" "$b" >&2 || fail "two builds differ: $(sha256sum "$a" "$b")"
sha256sum "$a" "$b" >&2

version=$(sed -n 's/^#define INGERO_VERSION "\(.*\)"/\1/p' "$REPO/lib/include/ingero/ilog.h")
assert_eq "name" "$(basename "$a")" "ingero-$version-linux-x86_64.tar.gz"
top=ingero-$version-linux-x86_64
# the contents, without the version; of docs/ and LICENSE (if there is
# one) only that they are there
tar -tzf "$a" | sed "s|^$top/|TOP/|" >contents
grep -v -e '^TOP/docs/.' -e '^TOP/LICENSE$' contents
grep -qx 'TOP/docs/HACKING.md' contents || fail "no docs/HACKING.md"
# owner and time of every entry
tar --numeric-owner -tvzf "$a" --full-time >list
bad=$(awk '$2 != "0/0"' list | wc -l)
assert_eq "entries not owned by 0/0" "$bad" 0
when=$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
bad=$(grep -vc -- " $when " list || true)
assert_eq "entries not dated $when" "$bad" 0
# the sums hold
mkdir x
tar -xzf "$a" -C x
(cd "x/$top" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match"
# the man pages render without a warning, one per bundled program
for m in x/"$top"/man/man*/*; do
	w=$(groff -man -ww -z "$m" 2>&1) || fail "$m: groff failed"
	[[ -z $w ]] || fail "$m: $w"
done
assert_eq "man pages" "$(ls x/"$top"/man/man1 | wc -l)" "$(ls x/"$top"/bin | wc -l)"
