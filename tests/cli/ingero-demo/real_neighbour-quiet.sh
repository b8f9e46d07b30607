# recorded for real, the clean counterpart of noisy-neighbour: the same two
# containers, the neighbour's process idle (1 ms of work every 100 ms) on
# another CPU: no HIGH or MEDIUM chain, no chain blames the neighbour.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
. "$INGERO_TESTS/cli/ingero-demo/neighbour.bash"
ingero demo --bpf -q neighbour-quiet -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
ingero-export run.ilog >recs.jsonl || exit 1
pid=$(jq -s '[.[] | select(.type=="process" and .comm=="neighbour") | .pid] | first // 0' recs.jsonl)
if jq -se --argjson p "$pid" 'any(.[]; .type=="chain" and .culprit_pid==$p)' corr.jsonl >/dev/null; then
	echo "a chain blames the idle neighbour:" >&2
	jq -r 'select(.type=="chain") | "  #\(.rank) \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2
	exit 1
fi
# an idle neighbour on another CPU may leave no trace; if it is named
# (preempted or woke the job once), its container has no CUDA process and
# no chain names it, so CONTAINERS counts it on the "other groups" line
# instead of listing it
if [ -n "$(jq -r 'select(.type=="process" and .comm=="neighbour") | .container_id' recs.jsonl | head -n 1)" ]; then
	if grep -q '^  pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff' out.txt ||
	   ! grep -Eq '^  [0-9]+ other groups?: ' out.txt; then
		echo "the idle neighbour's container is listed, or not counted among the other groups:" >&2
		cat out.txt >&2; exit 1
	fi
fi
# the job itself runs in its container
[ "$(jq -sr '[.[] | select(.type=="process" and .comm=="train")] | last | .pod_uid' recs.jsonl)" = \
	7a1b0000-2222-4333-8444-555566667777 ] || [ "${CI:-}" != true ] ||
	{ echo "CI: the job's container cgroup was not made" >&2; exit 1; }
