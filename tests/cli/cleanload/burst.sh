# SPDX-License-Identifier: MIT
# A burst of 20 short-lived CUDA processes, recorded for real: each lives
# a few ms, makes 7-26 kernel launches, spends ~1 ms in its first call and
# exits.  No HIGH or MEDIUM chain, no chain naming the recorder or a
# process as its own culprit, the recording overhead at most once (a note,
# never a chain); the
# processes' alike findings are one group chain, not one per process.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
ingero-record --check 2>/dev/null | grep -q '^ok   bpf ' ||
	{ echo "BPF programs cannot be loaded here" >&2; exit 77; }
export INGERO_RECORD_LOCK=$PWD/record.lock
W=$INGERO_OUT/tests/fakecuda/workload
cat >burst <<EOS
for i in \$(seq 20); do
	n=\$((7 + (i * 7) % 20))
	FAKECUDA_LAT_cudaLaunchKernel_NS=\$((2000000 / n)) FAKECUDA_JITTER_PCT=20 \\
	FAKECUDA_FIRST_cudaLaunchKernel_NS=1000000 FAKECUDA_MODE=sleep FAKECUDA_MODE_cudaLaunchKernel=spin \\
		$W --mix cudaMalloc=1,cudaLaunchKernel=\$n,cudaStreamSynchronize=1,cudaFree=1 --iters 1 \\
		--threads 2 >>reports.jsonl || exit 1
done
EOS
ingero-record -q -o run.ilog -- bash burst 2>rec.err || { cat rec.err >&2; exit 1; }
[ "$(wc -l <reports.jsonl)" = 20 ] || { echo "the burst did not run" >&2; exit 1; }
ingero-correlate --json run.ilog >corr.jsonl || exit 1
jq -r 'select(.type=="chain") | "\(.severity) \(.pattern) pid \(.pid) culprit \(.culprit_comm) (\(.culprit_pid)): \(.title)"' corr.jsonl >&2
ingero-export run.ilog | jq -s '[.[] | select(.type=="cuda") | .pid] | unique | length' >procs.txt
[ "$(cat procs.txt)" = 20 ] || { echo "recorded $(cat procs.txt) CUDA processes, want 20" >&2; exit 1; }
jq -se 'any(.[]; .type=="chain" and (.severity=="HIGH" or .severity=="MEDIUM")) | not' corr.jsonl >/dev/null ||
	{ echo "HIGH or MEDIUM chain on a clean burst" >&2; exit 1; }
jq -se 'any(.[]; .type=="chain" and .culprit_pid != 0 and (.culprit_pid == .pid or .culprit_comm == "ingero-record")) | not' \
	corr.jsonl >/dev/null || { echo "a chain blames the process itself or the recorder" >&2; exit 1; }
[ "$(jq -s '[.[] | select(.type=="note" and .pattern=="recording-overhead")] | length' corr.jsonl)" -le 1 ] ||
	{ echo "recording overhead reported more than once" >&2; exit 1; }
jq -se 'any(.[]; .type=="chain" and .pattern=="recording-overhead") | not' corr.jsonl >/dev/null ||
	{ echo "recording overhead reported as a chain, not a note" >&2; exit 1; }
# fewer than 3 chains per pattern and op: alike findings of 3 or more
# short-lived processes are one group chain
jq -se '[.[] | select(.type=="chain" and .pattern != "recording-overhead") | [.pattern, .op]] | group_by(.) | all(length < 3)' \
	corr.jsonl >/dev/null || { echo "alike findings not grouped" >&2; exit 1; }
# a group chain names its members and is graded as the typical one
jq -se 'all(.[] | select(.type=="chain" and .metrics.processes != null and .pattern != "recording-overhead");
	.metrics.processes >= 3 and (.root_cause | test("^[0-9]+ short-lived processes of workload \\(PIDs ")))' \
	corr.jsonl >/dev/null || { echo "bad group chain" >&2; exit 1; }
exit 0
