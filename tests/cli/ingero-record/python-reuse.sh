# SPDX-License-Identifier: MIT
# A code object freed and replaced after its frames were recorded, at the
# same address (CPython reuses the memory at once), under every CPython
# here: each call must resolve to its own code object (file gen<k>.py,
# line k + 2) or to nothing, never to another round's; code objects kept
# alive after the call must resolve; nothing may crash.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons

check_one() {
	local py=$1
	rm -f ready go
	start_py py.out "$py" "$INGERO_TESTS/cli/ingero-record/pyreuse.py" "$FAKE/libcudart.so.13"
	ppid=$PYPID
	wait_for ready
	start_rec --pid "$ppid"
	touch go
	wait "$ppid" || fail "$py pyreuse.py failed: $(cat py.out)"
	stop_rec
	export_log
	# the premise: the rounds' code objects shared an address
	[[ $(cut -d' ' -f2 py.out | sort -u | wc -l) -lt 6 ]] ||
		echo "$py: no code object address was reused; the case proves less" >&2
	# round k = the k-th call in time
	jq -r -s '(map(select(.type=="pystack")) | map({key: .id, value: .py_frames[0]}) | from_entries) as $ps
		| [.[] | select(.type=="cuda")] | sort_by(.ts_ns) | to_entries[]
		| "\(.key) \($ps[.value.pystack_id].py_file // "null") \($ps[.value.pystack_id].py_line // "null")"' \
		log.jsonl >calls
	assert_eq "$py: calls" "$(wc -l <calls)" 6
	local k file line
	while read -r k file line; do
		if [[ $file == null ]]; then
			((k % 2 == 0)) || fail "$py: round $k (kept alive) did not resolve"
			continue
		fi
		[[ $file == "gen$k.py" && $line == $((k + 2)) ]] ||
			fail "$py: round $k resolved to $file:$line, want gen$k.py:$((k + 2)) or nothing"
	done <calls
}

for entry in "${PYS[@]}"; do
	label=${entry%%:*}
	mkdir "$label"
	(cd "$label" && check_one "${entry#*:}") || exit 1
done
