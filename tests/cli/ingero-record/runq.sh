# SPDX-License-Identifier: MIT
# Waits to run, for real: the workload's synchronizes sleep 2 ms each
# (FAKECUDA_MODE=sleep) and a CPU hog ("backup") is pinned to the
# workload's CPU, so each wakeup finds the hog running there.  With
# --wakeup-min 1us every wait is written, and its value (format 1.7, SPEC
# 5.5) names the occupant, the task the woken thread took the CPU from:
# the hog, or on a busy machine another task that shares that CPU with it
# (a quarter of the waits at least are the hog's: it is always runnable).
# The hog, never the workload's preempter here, has a process record as
# an occupant, and an occupant is never the idle task's 0 on a CPU that
# is never idle.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
command -v taskset >/dev/null || skip "no taskset"

cpu=0
cp "$(command -v bash)" ./backup # the hog's comm is "backup"
export FAKECUDA_MODE=sleep FAKECUDA_LAT_cudaStreamSynchronize_NS=2000000
"$W" --pin $cpu --mix cudaLaunchKernel=4,cudaStreamSynchronize --iters 200 \
	--ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
taskset -c $cpu ./backup -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null || true' EXIT
start_rec --pid "$wpid" --wakeup-min 1us
touch go
wait "$wpid" || fail "workload failed"
stop_rec
kill $hog
export_log

wk=$(jq -s -c "[.[] | select(.type==\"host\" and .host_type==\"wakeup\" and .pid==$wpid)]" log.jsonl)
n=$(jq length <<<"$wk")
((n >= 100)) || fail "only $n wakeups of the workload written (200 sleeping synchronizes)"
nh=$(jq "[.[] | select(.value==$hog)] | length" <<<"$wk")
((nh * 4 >= n)) || fail "the hog (pid $hog) held the CPU in only $nh of $n waits: $(jq -c '[.[] | .value] | group_by(.) | map({(.[0] | tostring): length}) | add' <<<"$wk")"
assert_eq "cpu of the waits" "$(jq -c '[.[] | .cpu] | unique' <<<"$wk")" "[$cpu]"
# every wait has a known occupant here: the CPU always had the hog to run
assert_eq "waits with no occupant" "$(jq '[.[] | select(.value == 0)] | length' <<<"$wk")" 0
# the hog's process record, written for it as an occupant
assert_eq "process records of the hog" \
	"$(jq -s -c --argjson p "$hog" '[.[] | select(.type=="process" and .pid==$p) | .comm]' log.jsonl)" \
	'["backup"]'
echo "$n waits to run, $nh with the hog on the CPU" >&2
