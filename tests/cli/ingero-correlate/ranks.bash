# SPDX-License-Identifier: MIT
# Helpers of the ranks_* cases: the cross-rank analysis recomputed from the
# exported records with jq, the way a user would check a chain's numbers.

# arrivals FILE.jsonl: one line per collective, [seq, [[arrival_ns, pid], ...]]
# sorted by arrival; a rank's n-th ncclAllReduce is collective n.
arrivals() {
	jq -s -c '
		[.[] | select(.type == "cuda" and .op == "ncclAllReduce")]
		| group_by(.pid) | map(to_entries | map({seq: .key, ts: .value.ts_ns, pid: .value.pid}))
		| flatten | group_by(.seq)[]
		| [.[0].seq, (sort_by(.ts) | map([.ts, .pid]))]' "$1"
}

# chains FILE.jsonl: the chain objects of ingero-correlate --json, one per line
chains() {
	jq -c 'select(.type == "chain")' "$1"
}
