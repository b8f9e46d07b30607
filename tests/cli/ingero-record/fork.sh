# SPDX-License-Identifier: MIT
# Children are followed through fork: with --pid naming only the parent,
# the calls of forked children (each with threads) are recorded too, and
# fork/exit events arrive on the critical ring.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

record_workload "" --fork 3 --threads 2 --iters 50

pids=$(jq -r '.pids | join(" ")' report.json)
assert_eq "processes" "$(wc -w <<<"$pids")" 4
assert_eq "counts over parent and children" "$(cuda_counts "$pids")" "$(jq -S -c .calls report.json)"
for p in $pids; do
	n=$(jq -s "[.[] | select(.type==\"cuda\" and .pid==$p)] | length" log.jsonl)
	assert_eq "calls of pid $p" "$n" $((2 * 50 * 13))
done
children=$(jq -c "[.pids[] | select(. != $wpid)] | sort" report.json)
assert_eq "fork events name the children" \
	"$(jq -s -c "[.[] | select(.type==\"host\" and .host_type==\"fork\" and .pid==$wpid and .other_pid != $wpid) | .other_pid] | sort" log.jsonl)" \
	"$children"
assert_eq "exit events" \
	"$(jq -s -c '[.[] | select(.type=="host" and .host_type=="exit") | .pid] | sort' log.jsonl)" \
	"$(jq -c '.pids | sort' report.json)"
jq -e -s '[.[] | select(.type=="host" and .host_type=="exit") | .value] | all(. == 0)' log.jsonl \
	>/dev/null || fail "exit status not 0"
for p in $pids; do
	jq -e -s "any(.[]; .type==\"process\" and .pid==$p)" log.jsonl >/dev/null ||
		fail "no process record for $p"
done
assert_eq "critical ring lost" \
	"$(jq -s '[.[] | select(.type=="loss" and .source=="ringbuf:critical")] | last | .lost' log.jsonl)" 0
