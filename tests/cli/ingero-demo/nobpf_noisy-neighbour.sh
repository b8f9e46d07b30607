# ingero demo --no-bpf noisy-neighbour: the synthesized log (the job and
# "neighbour" in two Kubernetes pods' containers) is explained as
# cpu-contention naming the neighbour with its pod and container, every
# number recomputed from the log; the clean counterpart has no HIGH or
# MEDIUM chain
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check noisy-neighbour -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog cpu-contention neighbour cudaStreamSynchronize || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and
	(.root_cause | test("\\(neighbour\\) in pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff, preempted")) and
	.metrics.culprit_container_id == "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00")' \
	corr.jsonl >/dev/null || { echo "the neighbour's container is not named" >&2; exit 1; }
ingero demo --no-bpf --check neighbour-quiet -o quiet.ilog >q.txt || { cat q.txt >&2; exit 1; }
no_chain_above quiet.ilog MEDIUM
