# SPDX-License-Identifier: MIT
# Containers on hybrid cgroup hosts (v1 controllers beside the unified
# hierarchy): a container runtime may put a pod's container in the unified
# hierarchy and the cpu controller while the memory controller keeps the
# host's own slice, or in v1 controllers only.  Two workloads placed so, in
# Kubernetes-style cgroups (kubepods/burstable/pod<UID>/<id>) made for the
# test, get process records naming their pod and container: the first with
# the unified hierarchy's path and its id (what the kernel gives BPF), the
# second with the cpu controller's path.  On a unified host only the first
# layout exists; on a v1 host without the unified hierarchy, the cpu
# controller's path names both.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
hex=$(printf '%08x' $$)
pod1=$hex-1111-4222-8333-000000000001 ctr1=$(printf 'ab%.0s' {1..32})
pod2=$hex-1111-4222-8333-000000000002 ctr2=$(printf 'cd%.0s' {1..32})
unified=
if [[ -e /sys/fs/cgroup/cgroup.controllers ]]; then
	unified=/sys/fs/cgroup
elif [[ -e /sys/fs/cgroup/unified/cgroup.controllers ]]; then
	unified=/sys/fs/cgroup/unified
fi
cpu=
[[ -z $unified || $unified == /sys/fs/cgroup/unified ]] && [[ -e /sys/fs/cgroup/cpu/cgroup.procs ]] &&
	cpu=/sys/fs/cgroup/cpu
[[ -n $unified || -n $cpu ]] || skip "neither the unified hierarchy nor a v1 cpu controller here"
uself=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
cself=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' /proc/self/cgroup)
made=()
# mk ROOT SELF POD CTR: the container's folders under SELF; its path in rel
mk() {
	local d=$1${2%/} p
	rel=${2%/}/kubepods/burstable/pod$3/$4
	for p in kubepods burstable "pod$3" "$4"; do
		d=$d/$p
		[[ -d $d ]] || { mkdir "$d" || skip "cannot make $d"; made=("$d" "${made[@]}"); }
	done
}
sweep() {
	local d
	for d in "${made[@]}"; do rmdir "$d" 2>/dev/null || true; done
}
trap sweep EXIT
want1= want2= ucg1=
if [[ -n $unified ]]; then
	mk "$unified" "$uself" "$pod1" "$ctr1"
	want1=$rel ucg1=$unified$rel
fi
if [[ -n $cpu ]]; then
	mk "$cpu" "$cself" "$pod1" "$ctr1"
	ccg1=$cpu$rel
	[[ -n $want1 ]] || want1=$rel
	mk "$cpu" "$cself" "$pod2" "$ctr2"
	ccg2=$cpu$rel want2=$rel
fi
join1() {
	[[ -z $ucg1 ]] || echo "$BASHPID" >"$ucg1/cgroup.procs"
	[[ -z ${ccg1:-} ]] || echo "$BASHPID" >"$ccg1/cgroup.procs"
}
(join1 && exec "$W" --iters 50 --ready-file ready1 --wait-file go --report one.json) &
p1=$!
pids=$p1
if [[ -n $want2 ]]; then
	(echo "$BASHPID" >"$ccg2/cgroup.procs" &&
		exec "$W" --iters 50 --ready-file ready2 --wait-file go --report two.json) &
	p2=$!
	pids="$p1,$p2"
	wait_for ready2
fi
wait_for ready1
sed 's/^/  pid 1: /' "/proc/$p1/cgroup" >&2
start_rec --pid "$pids"
touch go
wait "$p1" || fail "workload 1 failed"
[[ -z $want2 ]] || wait "$p2" || fail "workload 2 failed"
stop_rec
export_log
rec1=$(jq -c "select(.type==\"process\" and .pid==$p1) | {cgroup, pod_uid, container_id}" log.jsonl | head -n 1)
assert_eq "the first process's record" "$rec1" \
	"{\"cgroup\":\"$want1\",\"pod_uid\":\"$pod1\",\"container_id\":\"$ctr1\"}"
if [[ -n $ucg1 ]]; then
	assert_eq "its cgroup id (the unified hierarchy's, as BPF reads it)" \
		"$(jq -r "select(.type==\"process\" and .pid==$p1) | .cgroup_id" log.jsonl | head -n 1)" \
		"$(stat -c %i "$ucg1")"
fi
if [[ -n $want2 ]]; then
	rec2=$(jq -c "select(.type==\"process\" and .pid==$p2) | {cgroup, pod_uid, container_id}" log.jsonl | head -n 1)
	assert_eq "the second process's record" "$rec2" \
		"{\"cgroup\":\"$want2\",\"pod_uid\":\"$pod2\",\"container_id\":\"$ctr2\"}"
fi
# the report names both containers
ingero-correlate --report rec.ilog >report.txt 2>&1 || true
grep -q "${ctr1:0:12}" report.txt || fail "the report does not name container ${ctr1:0:12}: $(head -c 2000 report.txt)"
exit 0
