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
# one fork event per child, from the parent, and one exit event per process
# (a sanitizer runtime may add processes of its own: only ours are counted)
for c in $(jq -r ".pids[] | select(. != $wpid)" report.json); do
	assert_eq "fork events naming child $c" \
		"$(jq -s "[.[] | select(.type==\"host\" and .host_type==\"fork\" and .other_pid==$c) | .pid]" log.jsonl | jq -c .)" \
		"[$wpid]"
done
for p in $pids; do
	assert_eq "exit events of $p" \
		"$(jq -s -c "[.[] | select(.type==\"host\" and .host_type==\"exit\" and .pid==$p) | .value]" log.jsonl)" '[0]'
done
for p in $pids; do
	jq -e -s "any(.[]; .type==\"process\" and .pid==$p)" log.jsonl >/dev/null ||
		fail "no process record for $p"
done
assert_eq "critical ring lost" \
	"$(last_loss ringbuf:critical .lost)" 0
