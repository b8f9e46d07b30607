# SPDX-License-Identifier: MIT
# CPU contention, for real: the workload and a CPU hog pinned to the same
# CPU.  Sync calls that burn 2 ms of their own CPU each are stretched, and
# the log names the hog (pid and comm) as the task that preempted the
# workload's thread, with off-CPU times that add up to the stretch.  The
# hog runs in a cgroup of its own, and so do short-lived hogs that exit
# before the recorder reads /proc: every process that preempted the
# workload has one process record naming that cgroup (path and id), the
# gone ones' from the cgroup id the kernel gave with the event.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
command -v taskset >/dev/null || skip "no taskset"
make_cgroup ingero-preempt-$$

cpu=0
cp "$(command -v bash)" ./backup           # the hog's comm is "backup"
cp "$(command -v bash)" ./flash
export FAKECUDA_MODE=cpu FAKECUDA_LAT_cudaStreamSynchronize_NS=2000000
"$W" --pin $cpu --mix cudaLaunchKernel=4,cudaStreamSynchronize --iters 150 \
	--ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
( echo "$BASHPID" >"$cg/cgroup.procs" && exec taskset -c $cpu ./backup -c 'while :; do :; done' ) &
hog=$!
trap 'kill $hog 2>/dev/null || true; sleep 0.2; rmdir "$cg" 2>/dev/null || true' EXIT
# (--host-top 64: the process records of up to 64 new preempters a second,
# not the default 8, so that every short-lived hog gets one)
start_rec --pid "$wpid" --host-top 64
touch go
# short-lived hogs ("flash") in the same cgroup while it runs
for ((i = 0; i < 8; i++)); do
	( echo "$BASHPID" >"$cg/cgroup.procs" &&
		exec taskset -c $cpu ./flash -c 'for ((i = 0; i < 3000; i++)); do :; done' )
done
wait "$wpid" || fail "workload failed"
stop_rec
kill $hog
export_log

sw=$(jq -s -c "[.[] | select(.type==\"host\" and .host_type==\"switch\" and .pid==$wpid)]" log.jsonl)
assert_eq "pid of every 'backup' preemption" \
	"$(jq -c '[.[] | select(.other_comm=="backup") | .other_pid] | unique' <<<"$sw")" "[$hog]"

n=$(jq length <<<"$sw")
((n > 10)) || fail "only $n switch events of the workload"
# (on a busy machine other tasks preempt it too; the hog must be among them)
byhog=$(jq "[.[] | select(.value==0 and .other_pid==$hog)]" <<<"$sw")
nh=$(jq length <<<"$byhog")
((nh >= 5)) || fail "the hog (pid $hog) preempted the workload $nh times"
assert_eq "the hog's comm" "$(jq -c '[.[] | .other_comm] | unique' <<<"$byhog")" '["backup"]'
assert_eq "cpu" "$(jq -c '[.[] | .cpu] | unique' <<<"$sw")" "[$cpu]"
assert_eq "thread" "$(jq -c '[.[] | .tid] | unique' <<<"$sw")" "[$wpid]"
# the stretch of the sync calls is the time the hog held the CPU
calls=$(jq .calls.cudaStreamSynchronize report.json)
sync=$(jq -s "[.[] | select(.type==\"cuda\" and .op==\"cudaStreamSynchronize\") | .dur_ns] | add" log.jsonl)
stretch=$((sync - calls * 2000000))
((stretch > calls * 1000000)) || fail "sync calls stretched by $stretch ns in all, expected well over 1 ms each"
off=$(jq '[.[] | .dur_ns] | add' <<<"$sw")
awk -v s="$stretch" -v o="$off" 'BEGIN { exit !(o >= 0.8 * s) }' ||
	fail "off-CPU time $off ns explains less than 80% of the stretch $stretch ns"
# a process record per hog that preempted it, the last (the one in force,
# SPEC 7.2) in the hogs' cgroup; a short-lived one seen first while exiting
# (its cgroup no longer known then) may have one before, and one gone
# before /proc was read and seen only exiting has the cgroup unknown
ino=$(stat -c %i "$cg")
short=$(jq -r '.[] | select(.other_comm=="flash") | .other_pid' <<<"$sw" | sort -u)
[[ -n $short ]] || fail "no short-lived hog preempted the workload"
named=0
for p in $hog $short; do
	c=$([[ $p == "$hog" ]] && echo backup || echo flash)
	recs=$(jq -s -c --argjson p "$p" --arg c "$c" '[.[] | select(.type=="process" and
		.pid==$p and .comm==$c) | {comm, cgroup, cgroup_id, exe}]' log.jsonl)
	last=$(jq -c 'last | {comm, cgroup, cgroup_id}' <<<"$recs")
	if [[ $c == backup ]]; then
		assert_eq "process records of the hog" "$(jq length <<<"$recs")" 1
	else
		(($(jq length <<<"$recs") <= 2)) || fail "preempter $p: $recs"
		[[ $last == '{"comm":"flash","cgroup":"","cgroup_id":0}' && $(jq -r 'last | .exe' <<<"$recs") == "" ]] &&
			continue
		named=$((named + 1))
	fi
	assert_eq "the process record of preempter $p" "$last" \
		"{\"comm\":\"$c\",\"cgroup\":\"$rel\",\"cgroup_id\":$ino}"
done
((named > 0)) || fail "no short-lived hog's record names its cgroup"
gone=$(jq -s '[.[] | select(.type=="process" and .comm=="flash" and .exe=="")] | length' log.jsonl)
echo "$(wc -w <<<"$short") short-lived hogs named, $named with their cgroup ($gone gone before the recorder read /proc)" >&2
echo "$n preemptions ($nh by the hog), sync stretched by $((stretch / 1000000)) ms, off CPU $((off / 1000000)) ms" >&2
