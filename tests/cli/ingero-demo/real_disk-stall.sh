# recorded for real: ingero demo disk-stall - the job's data loader (a child
# of the training process) reads batches from a loop device with O_DIRECT
# (the device reads its file with direct I/O, so requests queue on the disk
# under it); for a while another tenant's process outside the job, in a
# Kubernetes-like container cgroup, scans the same device with 8 readers of
# 1 MiB.  The loader blocks on I/O, the training loop waits for batches and
# its CUDA calls fall.  The top chain is disk-stall naming the device, its
# latency quantiles in and outside the interval, the job's I/O wait and the
# scanning process with its container and share of the device's bytes, each
# number recomputed from the exported records (check.jq).  The loop device
# clears itself when the demo closes it.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
if [ ! -e /dev/loop-control ] && [ "${CI:-}" != true ]; then
	echo "no loop devices here (CONFIG_BLK_DEV_LOOP)" >&2; exit 77
fi
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q disk-stall -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog disk-stall indexer || exit 1
jq -se 'any(.[]; .type=="chain" and .rank==1 and (.root_cause | test("; PID [0-9]+ \\(indexer\\) in pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff, moved ")))' \
	corr.jsonl >/dev/null || { echo "the scanning process and its container are not named" >&2; exit 1; }
pid=$(jq -r 'select(.type=="chain" and .rank==1) | .culprit_pid' corr.jsonl)
# the culprit is no target: no CUDA call, no iowait record of its own
[ "$(jq -s --argjson p "$pid" '[.[] | select((.type=="cuda" or .host_type=="iowait") and .pid==$p)] | length' recs.jsonl)" = 0 ] ||
	{ echo "culprit $pid is a target" >&2; exit 1; }
# the loader is the job's child and its I/O wait is in the log
train=$(jq -r 'select(.type=="chain" and .rank==1) | .pid' corr.jsonl)
jq -se --argjson t "$train" 'any(.[]; .type=="host" and .host_type=="iowait" and .comm=="loader") and
	any(.[]; .type=="process" and .comm=="loader" and .ppid==$t)' recs.jsonl >/dev/null ||
	{ echo "no iowait of the job's loader child" >&2; exit 1; }
# nothing left attached
! losetup -a 2>/dev/null | grep -q "ingero-demo" || { echo "a loop device is still attached" >&2; exit 1; }
# the HTML report draws the devices' throughput and p99 and the job's I/O wait
ingero-correlate --html report.html run.ilog || exit 1
for k in disk-bps-loop disk-p99-loop iowait; do
	grep -q "$k" report.html || { echo "no $k lane in the HTML report" >&2; exit 1; }
done
