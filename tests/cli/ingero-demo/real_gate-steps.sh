# the regression gate per training step on real recordings: steps of 4
# micro-batches, recorded twice, pass; the same loop with a tensor.item() in
# each micro-batch (a blocking 4-byte device-to-host cudaMemcpy of 1 ms)
# fails, naming the new call site and its calls and time per step, which the
# test recomputes from the recorded events
# (the three recorded at the same time: real_gate says why)
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
demo_together a.ilog "microbatch --seconds 5" b.ilog "microbatch --seconds 5" \
	item.ilog "microbatch-item --seconds 5" || exit 1
# the native frames named, for the call sites (as the demo's own report does)
for n in a b item; do
	ingero-symbolize -q $n.ilog -o $n.sym.ilog || exit 1
done
ingero-correlate --baseline a.sym.ilog b.sym.ilog >same.txt ||
	{ echo "the same workload failed the gate" >&2; cat same.txt >&2; exit 1; }
grep -q '^STEPS .* steps of 5 cudaStreamSynchronize; .*: ok$' same.txt ||
	{ echo "no steps of 5 synchronizes" >&2; cat same.txt >&2; exit 1; }
ingero-correlate --baseline a.sym.ilog item.sym.ilog >item.txt
rc=$?
[ $rc = 1 ] && grep -Eq '^RESULT: FAIL: step time of [^ ]+ \+[0-9.]+% \(each step: \+4\.0 calls of cudaMemcpy from microbatch_step \(workload\.c:[0-9]+\)[^,]*, \+[0-9.]+ ms\)' item.txt ||
	{ echo "exit $rc" >&2; cat item.txt >&2; exit 1; }
# the change per step, recomputed: the copies within the new run's steps
ingero-correlate --baseline a.sym.ilog --json item.sym.ilog >item.jsonl
ingero-correlate --json item.sym.ilog >steps.jsonl
ingero-export item.ilog | jq -c 'select(.type=="cuda" and .op=="cudaMemcpy") | [.pid, .ts_ns, .dur_ns]' >copies.txt
jq -se --slurpfile cp copies.txt --slurpfile s steps.jsonl '
	(map(select(.type=="step_diff")) | .[0]) as $d
	| ($s | map(select(.type=="steps" and .pid == $d.new_pid)) | .[0]) as $p
	| [$cp[] | select(.[0] == $p.pid and .[1] >= $p.start_ns and .[1] < $p.end_ns)] as $in
	| ($d.changes[0]) as $c
	| $d.regressed and $d.d_step > 0.2 and $c.op == "cudaMemcpy" and $c.old_calls_per_step == 0
	and (($c.new_calls_per_step - ($in | length) / $p.steps) | fabs) < 0.01
	and (($c.new_ns_per_step - ($in | map(.[2]) | add) / $p.steps) | fabs) < 1000' item.jsonl >/dev/null ||
	{ echo "the per-step change disagrees with the records" >&2; grep step_diff item.jsonl >&2; exit 1; }
