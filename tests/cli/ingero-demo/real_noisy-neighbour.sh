# recorded for real: ingero demo noisy-neighbour - the job runs in a
# Kubernetes-like container of its own (pod 7a1b..., container feed...) and
# another pod's container (pod 0d3e..., container c0ffee...) starts a CPU
# hog pinned to the job's CPU.  The hog is no target (started beside the
# recorder, no CUDA call): it is known from the switch records of the job's
# threads it preempted and the process record the recorder writes for it.
# The top chain is cpu-contention naming the hog's PID, comm and container
# (pod UID and container id, in the sentence and in full in the metrics),
# its numbers recomputed from the exported records; the text, JSON and HTML
# reports group the processes by container.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
. "$INGERO_TESTS/cli/ingero-demo/neighbour.bash"
POD=0d3e0000-1111-4222-8333-444455556666
CTR=c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00
JPOD=7a1b0000-2222-4333-8444-555566667777
ingero demo --bpf --check -q noisy-neighbour -o run.ilog --html report.html >out.txt ||
	{ cat out.txt >&2; exit 1; }
check_chain run.ilog cpu-contention neighbour "" || exit 1
pid=$(jq -r 'select(.type=="chain" and .rank==1) | .culprit_pid' corr.jsonl)
# the culprit is no target: no CUDA call of its own
[ "$(jq -s --argjson p "$pid" '[.[] | select(.type=="cuda" and .pid==$p)] | length' recs.jsonl)" = 0 ] ||
	{ echo "culprit $pid made CUDA calls" >&2; exit 1; }
# its process record names its container; the job's names another
pr=$(jq -sc --argjson p "$pid" '[.[] | select(.type=="process" and .pid==$p)] | last' recs.jsonl)
if [ "$(jq -r .container_id <<<"$pr")" = "" ] && [ "${CI:-}" != true ]; then
	echo "no container cgroup could be made here (the demo ran in its own)" >&2
	exit 77
fi
[ "$(jq -r '.comm, .pod_uid, .container_id' <<<"$pr" | paste -sd' ')" = "neighbour $POD $CTR" ] ||
	{ echo "culprit's process record: $pr" >&2; exit 1; }
train=$(jq -r 'select(.type=="chain" and .rank==1) | .pid' corr.jsonl)
[ "$(jq -sr --argjson p "$train" '[.[] | select(.type=="process" and .pid==$p)] | last | .pod_uid' recs.jsonl)" = "$JPOD" ] ||
	{ echo "the job's process record does not name its pod" >&2; exit 1; }
# the sentence names the container, the metrics carry it in full
jq -se --arg pod "$POD" --arg ctr "$CTR" 'any(.[]; .type=="chain" and .rank==1 and
	(.root_cause | test(" in pod \($pod), container \($ctr[0:12]), preempted")) and
	.metrics.culprit_pod_uid == $pod and .metrics.culprit_container_id == $ctr and
	(.metrics.culprit_cgroup | endswith("/kubepods/besteffort/pod\($pod)/\($ctr)")))' corr.jsonl >/dev/null ||
	{ echo "the chain does not name the neighbour's container:" >&2
	  jq -c 'select(.type=="chain" and .rank==1) | [.root_cause, .metrics]' corr.jsonl >&2; exit 1; }
# the reports group the processes by container: the job's and the neighbour's
grep -q '^CONTAINERS (node ' out.txt || { echo "no CONTAINERS section:" >&2; cat out.txt >&2; exit 1; }
awk -v j="  pod $JPOD, " -v p="$pid" '
	index($0, j) == 1 { inj = 1; next } /^  [^ ]/ { inj = 0 }
	inj && $1 == "PID" && $3 == "train" { t = 1 }
	END { exit !t }' out.txt || { echo "train not listed under its pod:" >&2; cat out.txt >&2; exit 1; }
awk -v n="  pod $POD, container ${CTR:0:12}" -v p="$pid" '
	index($0, n) == 1 { inn = 1; next } /^  [^ ]/ { inn = 0 }
	inn && $1 == "PID" && $2 == p && $3 == "neighbour" { f = 1 }
	END { exit !f }' out.txt || { echo "the neighbour not listed under its pod:" >&2; cat out.txt >&2; exit 1; }
ingero-correlate --json run.ilog | jq -se --arg pod "$POD" --arg jpod "$JPOD" --argjson p "$pid" --argjson t "$train" '
	any(.[]; .type=="container" and .pod_uid==$pod and any(.processes[]; .pid==$p and .calls==0)) and
	any(.[]; .type=="container" and .pod_uid==$jpod and any(.processes[]; .pid==$t and .calls > 0))' >/dev/null ||
	{ echo "ingero-correlate --json does not group by container" >&2; exit 1; }
grep -q '<section id="containers">' report.html && grep -q "<td class=\"s\">$CTR</td>" report.html &&
	grep -q "neighbour ($pid)" report.html || { echo "the HTML report does not group by container" >&2; exit 1; }
