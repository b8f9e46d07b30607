# SPDX-License-Identifier: MIT
# --flight with --p99-over: a steady workload, judged for seconds, writes
# nothing; a step in one op's latency (the fake library's
# FAKECUDA_SLOW_FILE: 5 ms calls take 800 ms more) triggers one dump whose
# `trigger` record names the process, the op, its recent p99 and its
# baseline's, and the other op, as steady as before, triggers nothing
# (flight-p99-proc: two processes, one slowed).  The factor (8) and
# the step stay clear of a loaded machine: with 2 CPUs shared by a dozen
# busy tasks the p99 of these 5 ms sleeps was 18 to 45 ms.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

rm -f ready slow
export FAKECUDA_MODE=sleep FAKECUDA_LAT_NS=5000000
FAKECUDA_SLOW_FILE=$PWD/slow FAKECUDA_SLOW_cudaMemcpy_NS=800000000 \
	"$W" --mix cudaStreamSynchronize,cudaMemcpy --seconds 120 --ready-file ready \
	--report w.json &
wpid=$!
trap 'kill $wpid 2>/dev/null || true' EXIT
wait_for ready
start_rec --pid "$wpid" --flight 3s --p99-over 8 -v
# both ops judged (enough calls in both windows), then 5 s more of it
for ((i = 0; i < 1200; i++)); do
	(($(grep -c -e '--p99-over: .* judged from now on' rec.err) == 2)) && break
	sleep 0.05
done
(($(grep -c -e '--p99-over: .* judged from now on' rec.err) == 2)) ||
	fail "the ops were not judged within 60 s: $(grep p99 rec.err)"
sleep 5
[[ -z $(ls rec.flight-* 2>/dev/null) ]] && ! grep -q "flight trigger" rec.err ||
	fail "a steady workload triggered: $(grep flight rec.err)"
touch slow
for ((i = 0; i < 600; i++)); do
	ls rec.flight-001-*Z.ilog >/dev/null 2>&1 && break
	sleep 0.05
done
ls rec.flight-001-*Z.ilog >/dev/null 2>&1 || fail "no dump 30 s after the step: $(grep flight rec.err)"
stop_rec
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
[[ $(ls rec.flight-* | wc -l) == 1 ]] || fail "one step, one dump: $(ls rec.flight-*)"
grep -q "flight trigger 1 (p99: the p99 of cudaMemcpy" rec.err || fail "no line for the trigger: $(cat rec.err)"
ingero-export rec.flight-001-*Z.ilog >d.jsonl 2>d.err || fail "dump unreadable: $(cat d.err)"
t=$(jq -s -c '[.[] | select(.type=="trigger")]' d.jsonl)
# the recent p99: a slow call (805 ms); the baseline's: a fast one (5 ms
# and what the machine adds), 8 times under it; both read from the
# histogram (within 1/32)
assert_eq "the trigger names the process, the op and both p99s" \
	"$(jq -c "map([.reason, .seq, .pid, .op, .value_ns >= 780000000, .value_ns > 8 * .baseline_ns,
		.baseline_ns >= 4800000])" <<<"$t")" \
	"[[\"p99\",1,$wpid,\"cudaMemcpy\",true,true,true]]"
ts=$(jq '.[0].ts_ns' <<<"$t")
# the first slow call ended before the trigger, and at most 8 s before it
# (judged each second; 1% of the last 5 s slow is enough: 3 or 4 calls)
first=$(jq -s "[.[] | select(.type==\"cuda\" and .op==\"cudaMemcpy\" and .dur_ns >= 800000000)
	| .ts_ns + .dur_ns] | min" d.jsonl)
[[ $first != null ]] && ((first <= ts && ts - first < 8000000000)) ||
	fail "trigger at $ts, first slow call ended at $first"
# the window before the trigger holds the fast calls of the baseline
(($(jq -s "[.[] | select(.type==\"cuda\" and .op==\"cudaMemcpy\" and .dur_ns < 800000000
	and .ts_ns < $ts)] | length" d.jsonl) > 0)) || fail "no fast call before the trigger in the dump"
