# SPDX-License-Identifier: MIT
# ingero-export --format jsonl prints each test vector's NAME.jsonl byte for
# byte, and for a damaged vector exactly NAME.stderr with exit status 2
# (format/SPEC.md §6, §9, §11).  Reads through a file and through stdin.
set -u
vec=$INGERO_TESTS/vectors
fails=0 n=0
for log in "$vec"/*.ilog; do
	name=$(basename "$log" .ilog)
	cp "$log" .
	rc=0
	ingero-export --format jsonl "$name.ilog" >out 2>err || rc=$?
	want_rc=0 want_err=/dev/null
	if [[ -e $vec/$name.stderr ]]; then
		want_rc=2 want_err=$vec/$name.stderr
	fi
	if [[ $rc != "$want_rc" ]]; then
		echo "$name: exit $rc, want $want_rc" >&2
		fails=$((fails + 1))
	fi
	if ! cmp -s out "$vec/$name.jsonl"; then
		echo "$name: stdout differs from $name.jsonl:" >&2
		diff "$vec/$name.jsonl" out | head -5 >&2
		fails=$((fails + 1))
	fi
	if ! cmp -s err "$want_err"; then
		echo "$name: stderr differs from ${want_err##*/}:" >&2
		diff "$want_err" err | head -5 >&2
		fails=$((fails + 1))
	fi
	n=$((n + 1))
done
((n >= 8)) || { echo "only $n vectors found in $vec" >&2; exit 1; }
# `cat a b` is a log (§3.3): the two exports, one after the other
cat "$vec/examples.ilog" "$vec/frames.ilog" | ingero-export >out || fails=$((fails + 1))
cat "$vec/examples.jsonl" "$vec/frames.jsonl" | cmp -s - out ||
	{ echo "cat examples.ilog frames.ilog: not the two exports" >&2; fails=$((fails + 1)); }
# every line is JSON to an independent parser
cat "$vec"/*.jsonl | jq -e -c 'has("type")' >/dev/null ||
	{ echo "jq rejects a line or finds one without \"type\"" >&2; fails=$((fails + 1)); }
((fails == 0))
