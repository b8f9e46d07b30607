# SPDX-License-Identifier: MIT
# A simulated four-rank job whose rank 1 blocks (off-CPU, waiting) before
# all-reduce #60 while ranks 0, 2 and 3 enter it and wait in their
# synchronize for 8 s until the recording ends (NO_RETURN): one HIGH
# collective-hang chain naming collective #60, the ranks in it, and rank 1
# (PID 4001) with its last CUDA call and its time off-CPU since; the
# waiting ranks get no chain of their own.  The same from the four ranks
# recorded apart and merged.
set -uo pipefail
. "$INGERO_TESTS/cli/ingero-correlate/ranks.bash"
job="$INGERO_OUT"/tests/tools/job
check() { # OUT.jsonl
	chains "$1" >chains.jsonl
	jq -s -e 'length == 1 and .[0].pattern == "collective-hang" and .[0].pid == 4001 and
		.[0].severity == "HIGH" and .[0].metrics.seq == 60 and .[0].metrics.ranks_in == 3 and
		.[0].metrics.ranks_missing == 1 and .[0].metrics.waited_ns >= 7900000000 and
		(.[0].root_cause | test("Ranks 0, 2, 3 entered ncclAllReduce #60") and
		 test("rank 1 \\(PID 4001, python3[,)].*last CUDA call, cudaLaunchKernel") and
		 test("off-CPU 8.00 s"))' chains.jsonl >/dev/null ||
		{ echo "$1:"; cat chains.jsonl; exit 1; } >&2
}
"$job" -o job.ilog --steps 100 --hang 1:60:8s || exit 1
ingero-correlate --json job.ilog >one.jsonl || exit 1
check one.jsonl
"$job" -o r --per-rank --steps 100 --hang 1:60:8s || exit 1
ingero-merge -q -o merged.ilog r0.ilog r1.ilog r2.ilog r3.ilog || exit 1
ingero-correlate --json merged.ilog >merged.jsonl || exit 1
check merged.jsonl
