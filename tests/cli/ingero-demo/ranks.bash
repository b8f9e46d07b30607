# SPDX-License-Identifier: MIT
# Shared by the multi-rank demo cases (real_straggler*, real_hang*,
# real_ranks-clean*; sourced, not a case).  They record a 4-rank job of the
# fake NCCL with `ingero demo`, by one recorder or by two (--two-nodes,
# merged by ingero-merge), and check the log from its exported records.
set -euo pipefail
pid=()
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# run_demo SCENARIO [--two-nodes]: run.ilog, and log.jsonl: its headers,
# process, cuda (but the launches) and inflight records (the fields the
# checks read), each
# with .ni, the index of the node it belongs to (a merged log's node
# records switch it).
run_demo() {
	ingero demo --bpf -q "$@" -o run.ilog >out.txt || {
		cat out.txt >&2
		fail "ingero demo $* failed"
	}
	ingero-export run.ilog |
		jq -c -n 'foreach inputs as $r (0; if $r.type == "node" then $r.node_index else . end;
			select($r.type == "header" or $r.type == "process" or $r.type == "inflight"
				or ($r.type == "cuda" and $r.op != "cudaLaunchKernel"))
			| . as $ni | $r | {type, node, version_minor, comm, pid, op, ts_ns, dur_ns, ret,
				bytes, kind, flags, args, ni: $ni})' >log.jsonl || fail "ingero-export failed"
	# the pid of each rank, by the name the demo runs it under (a helper it
	# forks has the name until it execs its own): the one that called CUDA
	for r in 0 1 2 3; do
		pid[r]=$(jq -s -r --arg c "rank$r" '[.[] | select(.type == "cuda") | .pid] as $cuda
			| [.[] | select(.type == "process" and .comm == $c) | .pid | select(. as $x
			| $cuda | index($x))] | unique | if length == 1 then .[0] else "none" end' log.jsonl)
		[[ ${pid[r]} != none ]] || fail "no single CUDA process named rank$r"
	done
}

# q JQ: jq over every record of log.jsonl as one array, compact
q() { jq -s -c "$@" log.jsonl; }

# ar_counts: the number of ncclAllReduce calls of ranks 0..3, as [n0,n1,n2,n3]
ar_counts() {
	q --argjson p "[${pid[0]},${pid[1]},${pid[2]},${pid[3]}]" \
		'[.[] | select(.type == "cuda" and .op == "ncclAllReduce")] as $a
		| $p | map(. as $x | [$a[] | select(.pid == $x)] | length)'
}

# check_ranks NODES: what every recording of the job holds.  Every rank
# joined the world communicator once (nranks 4, its own rank, and, in logs
# of format 1.4 on, the one id hash of the four), and made collectives;
# with 2 nodes, node-a holds ranks 0-1 and node-b ranks 2-3, nothing else.
check_ranks() {
	local nodes=$1 minor init
	[[ $(q '[.[] | select(.type == "header")] | length') == "$nodes" ]] ||
		fail "$(q '[.[] | select(.type == "header")] | length') headers, want $nodes"
	init=$(q --argjson p "[${pid[0]},${pid[1]},${pid[2]},${pid[3]}]" \
		'[.[] | select(.type == "cuda" and .op == "ncclCommInitRank")] | sort_by(.kind)
		| {n: length, ok: all(.[]; .ret == 0 and .bytes == 4),
		   ranks: map(.kind), pids: (map(.pid) == $p)}')
	[[ $init == '{"n":4,"ok":true,"ranks":[0,1,2,3],"pids":true}' ]] ||
		fail "ncclCommInitRank calls: $init"
	minor=$(q '[.[] | select(.type == "header") | .version_minor] | min')
	if ((minor >= 4)); then
		[[ $(q '[.[] | select(.type == "cuda" and .op == "ncclCommInitRank") | .args[0]]
			| (length == 4 and (unique | length) == 1 and .[0] != null)') == true ]] ||
			fail "the ranks' ncclCommInitRank id hashes differ: $(q '[.[] |
				select(.type == "cuda" and .op == "ncclCommInitRank") | .args]')"
	else
		echo "format 1.$minor: no id hash to compare" >&2
	fi
	local counts
	counts=$(ar_counts)
	jq -e 'min >= 20' <<<"$counts" >/dev/null || fail "ncclAllReduce calls per rank: $counts"
	if [[ $nodes == 2 ]]; then
		local where
		where=$(q --argjson p "[${pid[0]},${pid[1]},${pid[2]},${pid[3]}]" \
			'[.[] | select(.type == "header")] as $h
			| [.[] | select(.type == "cuda")] as $c
			| $p | map(. as $x | [$c[] | select(.pid == $x) | $h[.ni].node] | unique)')
		[[ $where == '[["node-a"],["node-a"],["node-b"],["node-b"]]' ]] ||
			fail "the ranks' nodes: $where"
	fi
}

# no_return_ranks: the ranks (0..3) with a call still in progress when the
# recording ended: a NO_RETURN cuda record, or an inflight one
no_return_ranks() {
	q --argjson p "[${pid[0]},${pid[1]},${pid[2]},${pid[3]}]" \
		'[.[] | select((.type == "cuda" and ((.flags // 0) % 2) == 1) or .type == "inflight")
		| .pid] as $h | [range(4) | select($p[.] as $x | $h | index($x))]'
}

# lateness: rank 2's arrival at the all-reduces against the other ranks',
# from the entry times of the n-th ncclAllReduce of every rank (ts_ns: one
# host's clock, also in a merged log of its two "nodes").  In the middle
# of the run (0.3-0.8 of the time from the first collective to the last,
# within the straggler scenario's hog, 0.25-0.85) and outside it (before
# 0.2, after 0.9): how many collectives, in how many rank 2 came last,
# its lead over the latest other rank (p50, p90; ms) and the spread of the
# other ranks' arrivals among themselves (p50).
lateness() {
	q --argjson p "[${pid[0]},${pid[1]},${pid[2]},${pid[3]}]" '
	def others: [.[0], .[1], .[3]];
	def gap: (.[2] - (others | max)) / 1e6;
	def spread: ((others | max) - (others | min)) / 1e6;
	def pct(f): sort | if length == 0 then null else .[(length - 1) * f | floor] end;
	def stats: {n: length, last: map(select(gap > 0)) | length,
		gap_p50: map(gap) | pct(0.5), gap_p90: map(gap) | pct(0.9),
		spread_p50: map(spread) | pct(0.5)};
	[.[] | select(.type == "cuda" and .op == "ncclAllReduce")] as $a
	| [$p[] as $x | [$a[] | select(.pid == $x) | .ts_ns] | sort] as $t
	| [range($t | map(length) | min) as $k | [$t[][$k]]] as $e
	| ($e[0] | min) as $first | (($e[-1] | max) - $first) as $span
	| {mid: [$e[] | select(min >= $first + 0.3 * $span and max <= $first + 0.8 * $span)] | stats,
	   out: [$e[] | select(max < $first + 0.2 * $span or min > $first + 0.9 * $span)] | stats}'
}

# check_straggler: in the middle of the run rank 2 arrives last at nearly
# every all-reduce, by a lead over the latest other rank larger than twice
# the others' spread among themselves and than its own lead at its 90th
# percentile outside the hog's time; outside it, it is not the usual last.
check_straggler() {
	local l
	l=$(lateness)
	echo "rank 2's lateness (ms): $l" >&2
	jq -e '.mid.n >= 20 and .out.n >= 20' <<<"$l" >/dev/null || fail "too few collectives: $l"
	jq -e '.mid.last >= 0.75 * .mid.n' <<<"$l" >/dev/null ||
		fail "rank 2 came last in $(jq .mid.last <<<"$l") of $(jq .mid.n <<<"$l") all-reduces"
	jq -e '.mid.gap_p50 > 2 * .mid.spread_p50 and .mid.gap_p50 > .out.gap_p90' <<<"$l" \
		>/dev/null || fail "rank 2's lead is not above the others' own spread: $l"
	jq -e '.out.last <= 0.6 * .out.n' <<<"$l" >/dev/null ||
		fail "rank 2 came last as often without the hog: $l"
}

# check_hang: ranks 0, 1 and 3 were still in the collective (its
# synchronize) when the recording ended, one all-reduce more than rank 2,
# which never entered it and has no call in progress.
check_hang() {
	local c r
	r=$(no_return_ranks)
	[[ $r == '[0,1,3]' ]] || fail "ranks with a call in progress at the end: $r, want [0,1,3]"
	c=$(ar_counts)
	jq -e '.[0] == .[1] and .[1] == .[3] and .[2] == .[0] - 1' <<<"$c" >/dev/null ||
		fail "ncclAllReduce calls per rank: $c (rank 2 one fewer wanted)"
}

# check_clean: every rank made every collective, none is left in one, and
# no rank is the usual last to arrive.
check_clean() {
	local c r last
	r=$(no_return_ranks)
	[[ $r == '[]' ]] || fail "ranks with a call in progress at the end: $r"
	c=$(ar_counts)
	jq -e 'unique | length == 1' <<<"$c" >/dev/null || fail "ncclAllReduce calls per rank: $c"
	last=$(q --argjson p "[${pid[0]},${pid[1]},${pid[2]},${pid[3]}]" '
		[.[] | select(.type == "cuda" and .op == "ncclAllReduce")] as $a
		| [$p[] as $x | [$a[] | select(.pid == $x) | .ts_ns] | sort] as $t
		| [range($t | map(length) | min) as $k | [$t[][$k]] | index(max)]
		| [group_by(.)[] | length] | {n: add, max: max}')
	echo "last arrivals: $last" >&2
	jq -e '.max <= 0.6 * .n' <<<"$last" >/dev/null || fail "one rank is the usual last: $last"
}

# ---- the analysis of the recording (ingero-correlate, docs/ranks.md) ----

# chains: ingero-correlate --json over run.ilog, its chains into chains.jsonl
chains() {
	ingero-correlate --json run.ilog >corr.jsonl || fail "ingero-correlate failed"
	jq -c 'select(.type == "chain")' corr.jsonl >chains.jsonl
	echo "chains: $(jq -c '[.pattern, .severity, .pid, .culprit_comm]' chains.jsonl | tr '\n' ' ')" >&2
}

# waiting_chains: the chains of ranks 0, 1 and 3 (the straggler's wait is
# theirs, never a finding of their own)
waiting_chains() {
	jq -s -c --argjson w "[${pid[0]},${pid[1]},${pid[3]}]" \
		'[.[] | select(.pid as $x | $w | index($x)) | [.pattern, .pid]]' chains.jsonl
}

# check_straggler_chain [exact]: the first chain is the straggler's, rank 2
# with the hog ("backup") as its culprit; no chain on the waiting ranks.
# With exact (one recorder: one clock), the chain's numbers are recomputed
# from the exported all-reduces: the n-th of every rank is collective n,
# who arrived last, and its lead over the last but one.
check_straggler_chain() {
	chains
	jq -s -e --argjson p "${pid[2]}" '.[0].pattern == "straggler" and .[0].pid == $p and
		.[0].culprit_comm == "backup" and .[0].metrics.rank == 2' chains.jsonl >/dev/null ||
		fail "the first chain is not rank 2's straggler chain with backup as culprit"
	[[ $(waiting_chains) == '[]' ]] || fail "chains on the waiting ranks: $(waiting_chains)"
	[[ ${1:-} == exact ]] || return 0
	local want
	want=$(q --argjson s "${pid[2]}" '
		[.[] | select(.type == "cuda" and .op == "ncclAllReduce")] | group_by(.pid)
		| map(sort_by(.ts_ns) | to_entries | map({seq: .key, ts: .value.ts_ns, pid: .value.pid}))
		| flatten | group_by(.seq) | map(select(length == 4) | sort_by(.ts))
		| {n: length, gaps: (map(select(.[3].pid == $s) | .[3].ts - .[2].ts) | sort)}
		| {n, last: (.gaps | length), p50: .gaps[(.gaps | length - 1) / 2 | floor],
		   lost: (.gaps | add)}')
	jq -s -e --argjson w "$want" '.[0] as $c | $c.metrics.collectives == $w.n and
		$c.metrics.last_count == $w.last and $c.metrics.lateness_p50_ns == $w.p50 and
		$c.lost_ns == $w.lost' chains.jsonl >/dev/null ||
		fail "recomputed $want, chain says $(jq -s -c '.[0] | .metrics + {lost_ns}' chains.jsonl)"
}

# check_hang_chain: a HIGH collective-hang chain naming rank 2 as the one
# that never entered the collective the other three wait in (the ranks'
# findings before the hang, a busy host's LOW ones, are theirs)
check_hang_chain() {
	chains
	jq -s -e --argjson p "${pid[2]}" 'map(select(.pattern == "collective-hang")) | length == 1 and
		.[0].pid == $p and .[0].severity == "HIGH" and .[0].metrics.ranks_in == 3 and
		.[0].metrics.ranks_missing == 1 and (.[0].root_cause | test("Ranks 0, 1, 3 entered"))' \
		chains.jsonl >/dev/null || fail "no collective-hang chain naming rank 2"
}

# check_clean_chains: no cross-rank chain, and nothing HIGH or MEDIUM
check_clean_chains() {
	chains
	jq -s -e 'map(select((.pattern | test("^(straggler|collective-)")) or
		.severity == "HIGH" or .severity == "MEDIUM")) | length == 0' chains.jsonl >/dev/null ||
		fail "a clean job has findings"
}
