# recorded for real: ingero demo memory-storm - a process that is no part of
# the job (started beside the recorder, not by the traced command, so never a
# target) and makes no CUDA call churns through memory from a Kubernetes-like
# container cgroup while the job's copies slow down.  Page allocations are
# counted for every process, so the top chain is memory-pressure naming that
# process, its container, its pages/s in and outside the interval and the
# fall of available memory, each recomputed from the exported records.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q memory-storm -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog memory-pressure preproc "cudaMemcpy" || exit 1
jq -e 'select(.type=="chain") | select(.rank==1) | .root_cause' corr.jsonl | grep -q ' allocated [0-9]* pages/s ' ||
	{ echo "the culprit's pages/s are not named" >&2; exit 1; }
pid=$(jq -r 'select(.type=="chain" and .rank==1) | .culprit_pid' corr.jsonl)
# the culprit is no target: not a CUDA process, not a child of the job
[ "$(jq -s --argjson p "$pid" '[.[] | select(.type=="cuda" and .pid==$p)] | length' recs.jsonl)" = 0 ] ||
	{ echo "culprit $pid made CUDA calls" >&2; exit 1; }
train=$(jq -r 'select(.type=="chain" and .rank==1) | .pid' corr.jsonl)
jq -se --argjson p "$pid" --argjson t "$train" 'any(.[]; .type=="process" and .pid==$p and .ppid!=$t)' \
	recs.jsonl >/dev/null || { echo "culprit $pid is the job's child or has no process record" >&2; exit 1; }
# where cgroups can be made, its container is named from its process record
cg=$(jq -r --argjson p "$pid" 'select(.type=="process" and .pid==$p) | .container_id' recs.jsonl | head -n 1)
if [ -n "$cg" ]; then
	# (jq -s: jq 1.6 -e exits 4 when the last line yields nothing, as a chain ranked after the first)
	jq -se 'any(.[]; .type=="chain" and .rank==1 and (.root_cause | test("in pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff,")))' \
		corr.jsonl >/dev/null || { echo "container not named" >&2; exit 1; }
	# the page_alloc records carry the cgroup id of the process record
	jq -se --argjson p "$pid" '([.[] | select(.type=="process" and .pid==$p) | .cgroup_id] | first) as $c |
		$c > 0 and all(.[] | select(.type=="host" and .host_type=="page_alloc" and .pid==$p); .cgroup_id == $c)' \
		recs.jsonl >/dev/null || { echo "cgroup ids differ" >&2; exit 1; }
elif [ "${CI:-}" = true ]; then
	echo "CI: no container cgroup was made" >&2; exit 1
fi
