# SPDX-License-Identifier: MIT
# --p99-over judges each (process, op) against its own baseline: two
# processes call cudaMemcpy (5 ms calls), one (4 threads, about 800 calls
# a second) far more often than the other (about 50 a second, named
# slowjob); when only slowjob's copies slow down (800 ms more each), its
# p99 rises 8 times over its own baseline's and a dump is triggered whose
# `trigger` record names slowjob's pid (and its process record, in the
# dump, names slowjob), though its few slow calls are under 1% of all the
# copies of the recent window - the p99 of the op over both processes,
# what the trigger judged before, stays a fast call (checked below from
# the dump).  The busy process, as steady as before, triggers nothing.
# The factor (8) stays clear of a loaded machine, as in flight-p99.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

rm -f ready-a ready-b slow
export FAKECUDA_MODE=sleep FAKECUDA_LAT_NS=5000000
"$W" --mix cudaMemcpy --threads 4 --seconds 150 --ready-file ready-a --report a.json &
apid=$!
# slowjob: the workload under another name (its comm); a 15 ms
# synchronize after each copy keeps it to about 50 copies a second
ln -sf "$W" slowjob
FAKECUDA_SLOW_FILE=$PWD/slow FAKECUDA_SLOW_cudaMemcpy_NS=800000000 \
	FAKECUDA_LAT_cudaStreamSynchronize_NS=15000000 \
	./slowjob --lib-dir "$FAKE" --mix cudaMemcpy,cudaStreamSynchronize --seconds 150 \
	--ready-file ready-b --report b.json &
bpid=$!
trap 'kill $apid $bpid 2>/dev/null || true' EXIT
wait_for ready-a
wait_for ready-b
start_rec --pid "$apid,$bpid" --flight 5s --p99-over 8 -v
# both processes' copies judged (enough calls in both windows), then 5 s
# more of them
judged() {
	grep -q -e "--p99-over: cudaMemcpy of pid $apid .* judged from now on" rec.err &&
		grep -q -e "--p99-over: cudaMemcpy of pid $bpid (slowjob) judged from now on" rec.err
}
for ((i = 0; i < 1200; i++)); do
	judged && break
	sleep 0.05
done
judged || fail "the copies were not judged within 60 s: $(grep p99 rec.err)"
sleep 5
[[ -z $(ls rec.flight-* 2>/dev/null) ]] && ! grep -q "flight trigger" rec.err ||
	fail "steady workloads triggered: $(grep flight rec.err)"
touch slow
# the trigger within 30 s, its dump 5 s later
for ((i = 0; i < 800; i++)); do
	ls rec.flight-001-*Z.ilog >/dev/null 2>&1 && break
	sleep 0.05
done
ls rec.flight-001-*Z.ilog >/dev/null 2>&1 || fail "no dump 40 s after the step: $(grep flight rec.err)"
stop_rec
kill "$apid" "$bpid" 2>/dev/null || true
wait "$apid" "$bpid" 2>/dev/null || true
[[ $(ls rec.flight-* | wc -l) == 1 ]] || fail "one step, one dump: $(ls rec.flight-*)"
grep -q "flight trigger 1 (p99: the p99 of cudaMemcpy in pid $bpid (slowjob)" rec.err ||
	fail "no line naming the process: $(grep trigger rec.err)"
ingero-export rec.flight-001-*Z.ilog >d.jsonl 2>d.err || fail "dump unreadable: $(cat d.err)"
t=$(jq -s -c '[.[] | select(.type=="trigger")]' d.jsonl)
assert_eq "the trigger names the slowed process, the op and both p99s" \
	"$(jq -c "map([.reason, .seq, .pid, .tid, .op, .value_ns >= 780000000,
		.value_ns > 8 * .baseline_ns, .baseline_ns >= 4800000])" <<<"$t")" \
	"[[\"p99\",1,$bpid,0,\"cudaMemcpy\",true,true,true]]"
assert_eq "the dump's process record of the trigger's pid" \
	"$(jq -s -r "[.[] | select(.type==\"process\" and .pid==$bpid) | .comm] | unique | join(\",\")" d.jsonl)" \
	slowjob
ts=$(jq '.[0].ts_ns' <<<"$t")
# the recent window (the 5 s before the trigger, all in the dump): the
# slow copies under 1% of both processes' copies, so that the p99 over
# both is a fast copy; and slowjob's fast copies before them
read -r all slow fast < <(jq -s -r "[.[] | select(.type==\"cuda\" and .op==\"cudaMemcpy\"
	and .ts_ns + .dur_ns <= $ts and .ts_ns + .dur_ns > $ts - 5000000000)]
	| [length, ([.[] | select(.dur_ns >= 800000000)] | length),
	   ([.[] | select(.pid == $bpid and .dur_ns < 800000000)] | length)] | map(tostring) | join(\" \")" d.jsonl)
((slow > 0 && slow * 100 < all)) ||
	fail "the recent window: $slow slow copies of $all, want some and under 1%"
((fast > 0)) || fail "no fast copy of slowjob in the recent window"
echo "the recent window: $slow slow copies of slowjob's $((slow + fast)), of $all copies in all" >&2
