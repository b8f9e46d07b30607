# SPDX-License-Identifier: MIT
# Launches are recorded at entry, all but one in N (--launch-timing, SPEC
# §5.4 UNTIMED), where the kernel has uprobe session programs: every launch
# is still one record (recorded + probe:OP lost = calls made), the untimed
# ones with flags 4, no duration, no return value, and the stack of the
# call; other ops keep their durations; --launch-timing 1 times them all.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

last() { jq -s "[.[] | select(.type==\"loss\" and .source==\"$1\")] | last | .$2 // 0" log.jsonl; }
q() { jq -s --arg op "$1" "[.[] | select(.type==\"cuda\" and .op==\$op)] $2" log.jsonl; }
ingero-record --check >check.out 2>&1 || true
session=0
grep -Eq "^ok +probes +uprobe session programs" check.out && session=1

record_workload "--launch-timing 4" --mix cudaLaunchKernel=8,cudaStreamSynchronize --iters 200
made=$(jq .calls.cudaLaunchKernel report.json)
got=$(q cudaLaunchKernel '| length')
assert_eq "launches: recorded + lost" $((got + $(last probe:cudaLaunchKernel lost))) "$made"
untimed=$(q cudaLaunchKernel '| map(select(.flags == 4)) | length')
if ((session)); then
	# one in 4 timed; the counter is per CPU, so allow a little slack
	((untimed >= got * 3 / 4 - 8 && untimed <= got * 3 / 4 + 8)) ||
		fail "untimed $untimed of $got launches with 1 in 4 timed"
	assert_eq "untimed: no duration, no return value" \
		"$(q cudaLaunchKernel '| map(select(.flags == 4 and (.dur_ns != 0 or .ret != 0))) | length')" 0
	assert_eq "untimed: their stacks" \
		"$(q cudaLaunchKernel '| map(select(.flags == 4 and .stack_id == "0x0")) | length')" 0
	assert_eq "untimed: the arguments" \
		"$(q cudaLaunchKernel '| map(select(.flags == 4 and .grid_x == 0)) | length')" 0
else
	assert_eq "no session programs: every launch timed" "$untimed" 0
fi
# the statistics count every launch, timed or not (SPEC §5.4): the
# report's CALLS, the exports and the rates agree with the records
assert_eq "ingero-correlate's launch count" \
	"$(ingero-correlate --json rec.ilog 2>/dev/null | jq -s '[.[] | select(.type=="stat" and .op=="cudaLaunchKernel") | .count] | add')" "$got"
assert_eq "timed launches have a duration" \
	"$(q cudaLaunchKernel '| map(select(.flags == 0 and .dur_ns == 0)) | length')" 0
assert_eq "syncs all timed" "$(q cudaStreamSynchronize '| map(select(.flags != 0)) | length')" 0

record_workload "--launch-timing 1" --mix cudaLaunchKernel=8 --iters 50
assert_eq "--launch-timing 1: none untimed" "$(q cudaLaunchKernel '| map(select(.flags != 0)) | length')" 0
assert_eq "--launch-timing 1: all recorded" "$(q cudaLaunchKernel '| length')" \
	"$(jq .calls.cudaLaunchKernel report.json)"
echo "ok: $untimed of $got launches untimed (session programs: $session)"
