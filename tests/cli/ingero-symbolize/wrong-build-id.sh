# SPDX-License-Identifier: MIT
# Another build of the program at the recorded path: one warning naming
# both build-ids, and not one name or line taken from the wrong file; the
# library, which did not change, is still symbolized.  With a bundle from
# the recording node the right names come back (the warning stays).
. "$INGERO_TESTS/symbolize/common.sh"
record node-a
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
names="s|$PWD/||; s/$(bid node-a/symtest)/<symtest's>/; s/$(bid "$symdir/symtest-v2")/<symtest-v2's>/"
ingero-symbolize --collect bundle node-a/run.ilog 2>/dev/null || exit 1
cp "$symdir/symtest-v2" node-a/symtest
ingero-symbolize node-a/run.ilog -o sym.ilog 2>err.txt || exit 1
sed "$names" err.txt
render sym.ilog
ingero-export -t symbol sym.ilog |
	jq -r 'select(.module | endswith("node-a/symtest")) | select(.function != "" or .file != "")' |
	wc -l | sed 's/^/symbol records naming something from the wrong file: /'
echo "-- with the bundle"
ingero-symbolize --debug-dir bundle node-a/run.ilog -o sym2.ilog 2>err2.txt || exit 1
sed "$names" err2.txt
render sym2.ilog | cmp - "$INGERO_TESTS/cli/ingero-symbolize/frames.stdout.exact" &&
	echo "the right frames"
