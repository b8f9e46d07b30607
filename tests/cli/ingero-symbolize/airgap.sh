# SPDX-License-Identifier: MIT
# Record on "node A", --collect a bundle there, then lose the node's files:
# symbolizing from the bundle alone (no recorded path, no system debug
# directory) gives output identical to symbolizing with the originals, and
# so does a stripped binary at the recorded path plus the bundle.
. "$INGERO_TESTS/symbolize/common.sh"
record node-a
ingero-symbolize node-a/run.ilog -o original.ilog || exit 1
ingero-export original.ilog >original.jsonl

ingero-symbolize --collect bundle node-a/run.ilog 2>collect.txt || exit 1
# every mapped file with a build-id is there, under its build-id
want=$(ingero-export -t mapping node-a/run.ilog |
	jq -r 'select(.build_id != "" and (.path | startswith("/"))) | .build_id' | sort -u)
have=$(cd bundle/.build-id && ls -d */* | grep -v '\.debug$' | tr -d / | sort)
[[ $want == "$have" ]] && echo "bundle: each mapped file with a build-id, by build-id"
bid=$(readelf -n node-a/symtest | awk '/Build ID/ { print $3 }')
cmp -s node-a/symtest "bundle/.build-id/${bid:0:2}/${bid:2}" && echo "bundle: symtest copied byte for byte"
ingero-symbolize --collect bundle node-a/run.ilog 2>again.txt || exit 1
grep -q ": 0 files copied (0 bytes), $(wc -l <<<"$want") already there" again.txt &&
	echo "collect again: nothing copied, all already there"

# the node's files are gone; nothing found by path or in /usr/lib/debug
mv node-a gone
ingero-symbolize --sysroot /nonexistent --no-system-debug --debug-dir bundle gone/run.ilog \
	-o bundled.ilog 2>bundled.err || exit 1
ingero-export bundled.ilog | cmp - original.jsonl && echo "from the bundle alone: identical"
[[ -s bundled.err ]] && { echo "unexpected warnings:"; cat bundled.err; }

# a stripped copy at the recorded path: code from it, names and lines from the bundle
mkdir node-a
strip --strip-all -o node-a/symtest gone/symtest
strip --strip-all -o node-a/libsymtest.so gone/libsymtest.so
ingero-symbolize --no-system-debug --debug-dir bundle gone/run.ilog -o stripped.ilog || exit 1
ingero-export stripped.ilog | cmp - original.jsonl && echo "stripped binaries plus the bundle: identical"
render bundled.ilog | cmp - "$INGERO_TESTS/cli/ingero-symbolize/frames.stdout.exact" &&
	echo "and those are the right frames"
